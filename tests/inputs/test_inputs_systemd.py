"""inputs: systemd units, with expected results taken from systemd.service(5), systemd.syntax(7),
systemd.exec(5) and systemd's own test-execute units."""

from __future__ import annotations

from pathlib import Path

import pytest

from flagscan.inputs import InputError, read_launch_file

LAUNCH = "/usr/bin/python3 -m sglang.launch_server"


def unit(tmp_path: Path, body: str, name: str = "sglang.service") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def args(path: Path, index: int = 0) -> list[str]:
    return [a.text for a in read_launch_file(path)[index].args]


def test_doc_example_dollar_word_splits_and_braces_do_not(tmp_path: Path) -> None:
    # systemd.service(5), "Command lines": four arguments "one", "two", "two", "two two".
    path = unit(tmp_path, f"""[Service]
Environment="ONE=one" 'TWO=two two'
ExecStart={LAUNCH} $ONE $TWO ${{TWO}}
""")
    assert args(path) == ["one", "two", "two", "two two"]


def test_doc_example_quotes_inside_values(tmp_path: Path) -> None:
    # systemd.service(5), second example, as corrected upstream (systemd issue #42442: the
    # quotes of ONE='one' are removed, so the first argument is "one").
    path = unit(tmp_path, f"""[Service]
Type=oneshot
Environment=ONE='one' "TWO='two two' too" THREE=
ExecStart={LAUNCH} ${{ONE}} ${{TWO}} ${{THREE}}
ExecStart={LAUNCH} $ONE $TWO $THREE
""")
    commands = read_launch_file(path)
    assert [[a.text for a in c.args] for c in commands] == [
        ["one", "'two two' too", ""],
        ["one", "two two", "too"],
    ]
    assert commands[0].env == {"ONE": "one", "TWO": "'two two' too", "THREE": ""}


def test_environment_assignments_as_in_test_execute(tmp_path: Path) -> None:
    # test/test-execute/exec-environment.service and exec-environment-multiple.service.
    path = unit(tmp_path, f"""[Service]
ExecStart={LAUNCH}
Environment="VAR1=word1 word2" VAR2=word3 "VAR3=$word 5 6"
""")
    assert read_launch_file(path)[0].env == {"VAR1": "word1 word2", "VAR2": "word3", "VAR3": "$word 5 6"}
    path.write_text(path.read_text() + 'Environment="VAR3=foobar"\n')
    assert read_launch_file(path)[0].env["VAR3"] == "foobar"


def test_empty_environment_resets_and_invalid_assignments_are_ignored(tmp_path: Path) -> None:
    path = unit(tmp_path, f"""[Service]
Environment=A=1 B=2
Environment=
Environment=C=3 not-an-assignment 1X=4
ExecStart={LAUNCH}
""")
    command = read_launch_file(path)[0]
    assert command.env == {"C": "3"}
    assert any("not-an-assignment" in n for n in command.notes)


def test_dollar_dollar_and_braceless_inside_a_word(tmp_path: Path) -> None:
    path = unit(tmp_path, f"""[Service]
Environment=PORT=30000
ExecStart={LAUNCH} --a $$PORT --port=${{PORT}} --b=$PORT
""")
    tokens = read_launch_file(path)[0].args
    assert [t.text for t in tokens] == ["--a", "$PORT", "--port=30000", "--b=$PORT"]
    assert tokens[1].unresolved == ()
    assert tokens[3].unresolved == ("PORT",)  # systemd does not expand $NAME inside a word


def test_unset_variables_stay_visible(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nExecStart={LAUNCH} --model-path ${{MODEL}} $EXTRA_ARGS\n")
    tokens = read_launch_file(path)[0].args
    assert [(t.text, t.unresolved) for t in tokens] == [
        ("--model-path", ()), ("${MODEL}", ("MODEL",)), ("$EXTRA_ARGS", ("EXTRA_ARGS",))]


def test_dollar_word_value_is_split_with_quotes(tmp_path: Path) -> None:
    path = unit(tmp_path, f"""[Service]
Environment='ARGS=--served-model-name "my model" --tp 2'
ExecStart={LAUNCH} $ARGS
""")
    assert args(path) == ["--served-model-name", "my model", "--tp", "2"]


def test_colon_prefix_turns_expansion_off(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nEnvironment=M=x\nExecStart=:{LAUNCH} --model-path ${{M}} $M\n")
    assert args(path) == ["--model-path", "${M}", "$M"]


@pytest.mark.parametrize("prefix", ["-", "+", "!", "!!", "-+", "@-"])
def test_prefixes_are_stripped(tmp_path: Path, prefix: str) -> None:
    argv0 = " python3" if "@" in prefix else ""
    path = unit(tmp_path, f"[Service]\nExecStart={prefix}/usr/bin/python3{argv0} -m sglang.launch_server --tp 2\n")
    command = read_launch_file(path)[0]
    assert command.launcher == ("/usr/bin/python3", "-m", "sglang.launch_server")
    assert [a.text for a in command.args] == ["--tp", "2"]


def test_at_prefix_second_word_is_argv0(tmp_path: Path) -> None:
    path = unit(tmp_path, "[Service]\nExecStart=@/opt/venv/bin/python3 sglang-qwen -m sglang.launch_server --tp 4\n")
    command = read_launch_file(path)[0]
    assert command.launcher == ("/opt/venv/bin/python3", "-m", "sglang.launch_server")
    assert [a.text for a in command.args] == ["--tp", "4"]


def test_continuations_comments_and_positions(tmp_path: Path) -> None:
    # systemd.syntax(7): a trailing backslash joins lines; comment lines inside are skipped.
    path = unit(tmp_path, f"""[Service]
ExecStart={LAUNCH} \\
    --tp 4 \\
# a comment line
; another one
    --port 30000
""")
    command = read_launch_file(path)[0]
    assert command.line == 2
    assert [(a.text, a.line, a.column) for a in command.args] == [
        ("--tp", 3, 5), ("4", 3, 10), ("--port", 6, 5), ("30000", 6, 12)]


def test_blank_line_ends_a_continuation_and_double_backslash_is_not_one(tmp_path: Path) -> None:
    path = unit(tmp_path, f"""[Service]
ExecStart={LAUNCH} --tp 4 \\

Environment=A=1
""")
    command = read_launch_file(path)[0]
    assert [a.text for a in command.args] == ["--tp", "4"]
    assert command.env == {"A": "1"}
    path = unit(tmp_path, f"[Service]\nExecStart={LAUNCH} --x a\\\\\nEnvironment=B=2\n")
    command = read_launch_file(path)[0]
    assert [a.text for a in command.args] == ["--x", "a\\"]
    assert command.env == {"B": "2"}


def test_quoted_positions_point_at_the_quote(tmp_path: Path) -> None:
    path = unit(tmp_path, f'[Service]\nExecStart={LAUNCH} --served-model-name "my model"\n')
    token = read_launch_file(path)[0].args[1]
    column = len(f"ExecStart={LAUNCH} --served-model-name ") + 1
    assert (token.text, token.line, token.column) == ("my model", 2, column)


def test_empty_execstart_resets_the_list(tmp_path: Path) -> None:
    path = unit(tmp_path, f"""[Service]
ExecStart={LAUNCH} --tp 1
ExecStart=
ExecStart={LAUNCH} --tp 2
""")
    commands = read_launch_file(path)
    assert [[a.text for a in c.args] for c in commands] == [["--tp", "2"]]
    assert commands[0].line == 4


def test_semicolon_separates_commands_and_escaped_semicolon_does_not(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nType=oneshot\nExecStart=/bin/true ; {LAUNCH} --x \\; --tp 2\n")
    assert args(path) == ["--x", ";", "--tp", "2"]


def test_c_escapes(tmp_path: Path) -> None:
    # systemd.syntax(7) "Supported escapes": \s is a space, \xxx hex, \nnn octal; an unknown
    # escape is kept verbatim (with a warning in systemd's log).
    path = unit(tmp_path, f"[Service]\nExecStart={LAUNCH} a\\sb \\x41 \\101 'c\\td' \\q\n")
    command = read_launch_file(path)[0]
    assert [a.text for a in command.args] == ["a b", "A", "A", "c\td", "\\q"]
    assert any("escape" in n for n in command.notes)


def test_specifiers(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nExecStart={LAUNCH} %n %N %p %i %I %% %T %H\n", name="sglang@qwen-big.service")
    tokens = read_launch_file(path)[0].args
    assert [t.text for t in tokens] == [
        "sglang@qwen-big.service", "sglang@qwen-big", "sglang", "qwen-big", "qwen/big", "%", "/tmp", "%H"]
    assert tokens[-1].unresolved == ("%H",)


def test_environment_file_relative_optional_and_override(tmp_path: Path) -> None:
    # exec-environmentfile: comments, lines without '=', quotes spanning lines, backslashes.
    (tmp_path / "sglang.env").write_text(
        "VAR1='word1 word2'\nVAR2=word3 \n# comment1\n\n; comment2\n ; # comment3\nline without an equal\n"
        "VAR3='$word 5 6'\nVAR4='new\nline'\nVAR5=password\\with\\backslashes\nMODEL=from-file\n")
    path = unit(tmp_path, f"""[Service]
Environment=MODEL=from-unit KEEP=1
EnvironmentFile=-/nonexistent/optional.env
EnvironmentFile=sglang.env
ExecStart={LAUNCH} --model-path ${{MODEL}}
""")
    command = read_launch_file(path)[0]
    assert command.env == {
        "MODEL": "from-file", "KEEP": "1", "VAR1": "word1 word2", "VAR2": "word3", "VAR3": "$word 5 6",
        "VAR4": "new\nline", "VAR5": "passwordwithbackslashes"}
    assert [a.text for a in command.args] == ["--model-path", "from-file"]
    assert not any("optional.env" in n for n in command.notes)
    assert any("not absolute" in n for n in command.notes)


def test_missing_required_environment_file_is_noted(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nEnvironmentFile=/etc/sglang/missing.env\nExecStart={LAUNCH} $ARGS\n")
    command = read_launch_file(path)[0]
    assert any("missing.env" in n for n in command.notes)
    assert command.args[0].unresolved == ("ARGS",)


def test_drop_in_overrides(tmp_path: Path) -> None:
    path = unit(tmp_path, f"[Service]\nExecStart={LAUNCH} --tp 1\n")
    (tmp_path / "sglang.service.d").mkdir()
    (tmp_path / "sglang.service.d" / "override.conf").write_text(f"[Service]\nExecStart=\nExecStart={LAUNCH} --tp 8\n")
    command = read_launch_file(path)[0]
    assert [a.text for a in command.args] == ["--tp", "8"]
    assert command.args[0].path.endswith("override.conf")


def test_shell_wrapped_execstart(tmp_path: Path) -> None:
    path = unit(tmp_path, """[Service]
Environment=TP=4
ExecStart=/bin/bash -c 'exec python3 -m sglang.launch_server --tp $TP --port "$${PORT:-30000}"'
""")
    command = read_launch_file(path)[0]
    assert command.kind == "systemd"
    assert [a.text for a in command.args] == ["--tp", "4", "--port", "30000"]


def test_fixture_unit(tmp_path: Path) -> None:
    fixture = Path(__file__).parents[2] / "fixtures" / "units" / "sglang-qwen.service"
    command = read_launch_file(fixture)[0]
    assert command.kind == "systemd"
    assert command.launcher[1:] == ("-m", "sglang.launch_server")
    assert command.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"
    assert command.env["HF_HOME"] == "/srv/models/huggingface"
    texts = [a.text for a in command.args]
    assert texts[:2] == ["--model-path", "Qwen/Qwen3.5-122B-A10B"]
    assert "--enable-flashinfer-allreduce-fusion" in texts
    fusion = command.args[texts.index("--enable-flashinfer-allreduce-fusion")]
    assert (fusion.line, fusion.column) == (27, 5)


@pytest.mark.parametrize(("body", "reason"), [
    ("[Unit]\nDescription=x\n[Service]\nType=simple\n", "no ExecStart"),
    (f"[Service]\nExecStart={LAUNCH}\nExecStart=\n", "reset"),
    ("[Service]\nExecStart=/usr/bin/vllm serve x\n", "no SGLang launch command found"),
    ("[Service\nExecStart=x\n", "invalid section header"),
    (f'[Service]\nExecStart={LAUNCH} --model-path "unterminated\n', "unbalanced quoting"),
])
def test_input_errors(tmp_path: Path, body: str, reason: str) -> None:
    path = unit(tmp_path, body)
    with pytest.raises(InputError) as info:
        read_launch_file(path)
    assert reason in str(info.value) and "\n" not in str(info.value)
