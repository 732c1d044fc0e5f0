"""inputs: shell scripts, plain command files and argv."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flagscan.inputs import InputError, command_from_argv, read_launch_file
from flagscan.inputs.model import Source
from flagscan.inputs.shell import read_shell

FIXTURES = Path(__file__).parents[2] / "fixtures" / "units"


def script(tmp_path: Path, text: str, name: str = "run.sh") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def texts(path: Path, index: int = 0) -> list[str]:
    return [a.text for a in read_launch_file(path)[index].args]


def test_env_prefixes_exec_nohup_and_redirections(tmp_path: Path) -> None:
    path = script(tmp_path, "CUDA_VISIBLE_DEVICES=0,1 HF_HOME=/hf exec nohup python3 -m sglang.launch_server "
                            "--tp 2 > /var/log/x.log 2>&1 &\n")
    command = read_launch_file(path)[0]
    assert command.launcher == ("python3", "-m", "sglang.launch_server")
    assert command.env == {"CUDA_VISIBLE_DEVICES": "0,1", "HF_HOME": "/hf"}
    assert [a.text for a in command.args] == ["--tp", "2"]


def test_env_command_and_export(tmp_path: Path) -> None:
    path = script(tmp_path, "export A=1\nB=2\nexport C\nC=3\nenv -u A D=4 sglang serve --model-path m\n")
    command = read_launch_file(path)[0]
    assert command.launcher == ("sglang", "serve")
    assert command.env == {"C": "3", "D": "4"}


def test_expansion_from_earlier_assignments(tmp_path: Path) -> None:
    path = script(tmp_path, """MODEL=Qwen/Qwen3-8B
ARGS="--tp 2   --port 30000"
python -m sglang.launch_server --model-path "$MODEL" $ARGS --name "${MODEL}-x" '$MODEL' --e ""
""")
    assert texts(path) == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port", "30000",
                           "--name", "Qwen/Qwen3-8B-x", "$MODEL", "--e", ""]


def test_unknown_variables_are_left_and_reported(tmp_path: Path) -> None:
    path = script(tmp_path, 'python -m sglang.launch_server --model-path "$MODEL" $(cat args) "$@" ${X%y}\n')
    tokens = read_launch_file(path)[0].args
    assert [(t.text, t.unresolved) for t in tokens] == [
        ("--model-path", ()), ("$MODEL", ("MODEL",)), ("$(cat args)", ("$(...)",)), ("$@", ("@",)), ("${X%y}", ("X",))]


def test_default_values_are_assumed_and_noted(tmp_path: Path) -> None:
    path = script(tmp_path, 'TP=${TP:-4}\npython -m sglang.launch_server --tp "$TP" ${EXTRA:+--x}\n')
    command = read_launch_file(path)[0]
    assert [a.text for a in command.args] == ["--tp", "4"]
    assert any("TP" in n for n in command.notes)


def test_continuations_comments_and_positions(tmp_path: Path) -> None:
    path = script(tmp_path, """#!/bin/sh
# comment: python -m sglang.launch_server --nope
python3 -m sglang.launch_server \\
  --tp 4 \\
  --host '0.0.0.0'  # trailing comment
""")
    command = read_launch_file(path)[0]
    assert command.line == 3
    assert [(a.text, a.line, a.column) for a in command.args] == [
        ("--tp", 4, 3), ("4", 4, 8), ("--host", 5, 3), ("0.0.0.0", 5, 10)]


def test_heredocs_echo_and_pipelines(tmp_path: Path) -> None:
    path = script(tmp_path, """cat > unit <<'EOF'
ExecStart=python -m sglang.launch_server --in-heredoc
EOF
echo python -m sglang.launch_server --echoed
python -m sglang.launch_server --tp 2 | tee log; echo done
""")
    commands = read_launch_file(path)
    assert len(commands) == 1
    assert [a.text for a in commands[0].args] == ["--tp", "2"]


def test_control_structures_and_bash_c(tmp_path: Path) -> None:
    path = script(tmp_path, """if [ -n "$X" ]; then
  python -m sglang.launch_server --tp 1
else
  bash -c "sglang serve --tp 2"
fi
""")
    commands = read_launch_file(path)
    assert [[a.text for a in c.args] for c in commands] == [["--tp", "1"], ["--tp", "2"]]
    assert commands[1].launcher == ("sglang", "serve")


def test_wrappers_give_a_clear_result(tmp_path: Path) -> None:
    path = script(tmp_path, "uv run python -m sglang.launch_server --tp 2\n"
                            "torchrun --nproc-per-node 2 -m sglang.launch_server --tp 4\n")
    first, second = read_launch_file(path)
    assert first.launcher == ("uv", "run", "python", "-m", "sglang.launch_server")
    assert second.launcher[0] == "torchrun" and [a.text for a in second.args] == ["--tp", "4"]
    assert any("torchrun" in n for n in second.notes)


def test_plain_command_file_and_bare_arguments(tmp_path: Path) -> None:
    command = read_launch_file(FIXTURES / "sglang-qwen.cmd")[0]
    assert command.kind == "shell" and command.launcher == ("python", "-m", "sglang.launch_server")
    path = script(tmp_path, "--model-path m \\\n  --tp 2\n", name="flags.txt")
    command = read_launch_file(path)[0]
    assert command.launcher == () and [a.text for a in command.args] == ["--model-path", "m", "--tp", "2"]


def test_fixture_script() -> None:
    command = read_launch_file(FIXTURES / "launch-qwen.sh")[0]
    assert command.env == {"HF_HOME": "/srv/models/huggingface", "CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    texts_ = [a.text for a in command.args]
    assert texts_[:4] == ["--model-path", "Qwen/Qwen3.5-122B-A10B", "--tp", "4"]
    assert "--speculative-num-draft-tokens" in texts_ and texts_[-1] == "$@"


def test_unterminated_quote_in_a_launch_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unterminated"):
        read_launch_file(FIXTURES / "malformed" / "unterminated.sh")
    path = script(tmp_path, "echo 'oops\npython -m sglang.launch_server --tp 1\n")
    with pytest.raises(InputError, match="unterminated"):
        read_launch_file(path)


def test_command_from_argv() -> None:
    command = command_from_argv(["CUDA_VISIBLE_DEVICES=0", "python3", "-m", "sglang.launch_server", "--tp", "2"])
    assert command.kind == "argv" and command.env == {"CUDA_VISIBLE_DEVICES": "0"}
    assert [(a.text, a.line, a.column) for a in command.args] == [("--tp", 1, 56), ("2", 1, 61)]
    bare = command_from_argv(["--model-path", "m", "--tp=2"])
    assert bare.launcher == () and [a.text for a in bare.args] == ["--model-path", "m", "--tp=2"]
    assert command_from_argv(["sglang", "serve", "--model-path", "$M"]).args[1].unresolved == ("M",)
    for bad in ([], ["vllm", "serve", "x"]):
        with pytest.raises(InputError, match="no SGLang launch command found"):
            command_from_argv(bad)


_safe = st.text(alphabet=st.characters(blacklist_characters="$`\\\n\r;&|()<>#\x00", blacklist_categories=("Cs",)),
                max_size=12)


@settings(max_examples=80, deadline=None)
@given(st.lists(_safe, max_size=6))
def test_quoting_matches_shlex(words: list[str]) -> None:
    # Without expansions or operators, words come out exactly as shlex (POSIX mode) splits them.
    line = "python -m sglang.launch_server " + " ".join(shlex.quote(w) for w in words)
    command = read_shell(Source.of("x.sh", line))[0]
    assert [a.text for a in command.args] == shlex.split(line)[3:]
