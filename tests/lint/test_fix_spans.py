"""lint --fix on every launch file kind: edits by source span, proved by reading the file again.

The property: for a generated file of each kind (systemd unit, shell script, compose
command list and string, Kubernetes args/command lists) with quoted (single, double),
unquoted, `=`-joined and continued-line flags, removing one flag (FS201) or renaming a
deprecated one (FS002) gives a file that flagscan's own readers parse to exactly the old
argv minus what was removed (or with the replacement).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flagscan.diagnostics import Diagnostic, FileLocation, Severity
from flagscan.inputs import parse_command
from flagscan.inputs.model import Source
from flagscan.inputs.read import read_launch_source
from flagscan.lint.context import Context
from flagscan.lint.fix import fix_text
from tests.lint.helpers import ROOT, target

TREE = "fixtures/trees/lint"
LAUNCHER = ("python3", "-m", "sglang.launch_server")
# (option, values) of the lint fixture tree; --stream-output is deprecated for --incremental-output.
GROUPS = [
    ("--model-path", ("m",)),
    ("--tp-size", ("4",)),
    ("--enable-allreduce-fusion", ()),
    ("--stream-output", ()),
    ("--mem-fraction-static", ("0.8",)),
    ("--schedule-policy", ("lpm",)),
    ("--enable-dp-attention", ()),
    ("--chunked-prefill-size", ("4096",)),
]
SHELL_QUOTES = ("bare", "single", "double")
NO_OP = "--enable-allreduce-fusion"


def _quote(word: str, style: str) -> str:
    return {"bare": word, "single": f"'{word}'", "double": f'"{word}"'}[style]


def _contexts(path: str, text: str, cache: Path) -> list[Context]:
    t = target(TREE, str(cache))
    return [Context(parse_command(c, t.inventory), t, None) for c in read_launch_source(Source.of(path, text))]


def _argvs(path: str, text: str) -> list[list[str]]:
    return [[*c.launcher, *(a.text for a in c.args)] for c in read_launch_source(Source.of(path, text))]


def _finding(code: str, flag: str, contexts: list[Context], index: int) -> Diagnostic:
    tok = contexts[0].command.args[index]
    return Diagnostic(code, Severity.WARNING, "x", flag, FileLocation(tok.path, tok.line, tok.column))


# -- generated files -------------------------------------------------------------------------

@st.composite
def commands(draw):
    """Server argument words in groups, each written joined (`--opt=v`) or apart, and the
    index of the group to edit."""
    chosen = draw(st.lists(st.sampled_from(range(len(GROUPS))), min_size=1, max_size=5, unique=True))
    if 0 not in chosen:
        chosen = [0, *chosen]
    groups = []
    for i in chosen:
        option, values = GROUPS[i]
        joined = bool(values) and draw(st.booleans())
        groups.append([f"{option}={values[0]}"] if joined else [option, *values])
    editable = [k for k, g in enumerate(groups) if k]  # --model-path stays (it is required)
    if not editable:
        groups.append([NO_OP])
        editable = [len(groups) - 1]
    return groups, draw(st.sampled_from(editable))


def _render_shell_like(groups, draw, kind: str) -> tuple[str, str]:
    words = [_quote(w, draw(st.sampled_from(SHELL_QUOTES))) for g in groups for w in g]
    seps = [draw(st.sampled_from((" ", " \\\n    ", " \\\n\t"))) for _ in words]
    body = "".join(sep + w for sep, w in zip(seps, words))
    if kind == "systemd":
        return "u.service", f"[Unit]\nDescription=x\n\n[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server{body}\nRestart=always\n"
    return "run.sh", f"#!/bin/sh\nset -e\nexec python3 -m sglang.launch_server{body}\necho done\n"


def _yaml_scalar(word: str, style: str) -> str:
    return {"bare": word, "single": f"'{word}'", "double": f'"{word}"'}[style]


def _render_list(words, draw, indent: str) -> str:
    styles = [draw(st.sampled_from(SHELL_QUOTES)) for _ in words]
    if draw(st.booleans()):
        return "\n" + "".join(f"{indent}- {_yaml_scalar(w, s)}\n" for w, s in zip(words, styles))
    items = ", ".join(_yaml_scalar(w, s) for w, s in zip(words, styles))
    if draw(st.booleans()):
        return f" [{items}]\n"
    return " [\n" + ",\n".join(f"{indent}  {_yaml_scalar(w, s)}" for w, s in zip(words, styles)) + f"\n{indent}]\n"


@st.composite
def files(draw):
    groups, edit = draw(commands())
    kind = draw(st.sampled_from(("systemd", "shell", "compose-list", "compose-string", "k8s-args", "k8s-command")))
    words = [w for g in groups for w in g]
    if kind in ("systemd", "shell"):
        path, text = _render_shell_like(groups, draw, kind)
    elif kind == "compose-list":
        with_launcher = draw(st.booleans())
        listed = [*LAUNCHER, *words] if with_launcher else words
        image = "python:3" if with_launcher else "lmsysorg/sglang:v0.5.10"
        path = "docker-compose.yaml"
        text = f"services:\n  llm:\n    image: {image}\n    command:{_render_list(listed, draw, '      ')}    ports:\n      - \"30000:30000\"\n"
    elif kind == "compose-string":
        quoted = [_quote(w, draw(st.sampled_from(SHELL_QUOTES))) for w in words]
        path = "docker-compose.yaml"
        if draw(st.booleans()):
            lines = "".join(f"      {w}\n" for w in quoted)
            text = f"services:\n  llm:\n    image: x\n    command: >\n      python3 -m sglang.launch_server\n{lines}    restart: always\n"
        else:
            text = f"services:\n  llm:\n    image: x\n    command: python3 -m sglang.launch_server {' '.join(quoted)}\n    restart: always\n"
    else:
        path = "deploy.yaml"
        head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: llm\nspec:\n  containers:\n    - name: llm\n      image: x\n"
        if kind == "k8s-args":
            text = head + "      command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n      args:" + \
                _render_list(words, draw, "        ") + "      ports:\n        - containerPort: 30000\n"
        else:
            text = head + "      command:" + _render_list([*LAUNCHER, *words], draw, "        ") + \
                "      ports:\n        - containerPort: 30000\n"
    return path, text, groups, edit


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=files(), rename=st.booleans())
def test_fixed_file_reads_as_the_old_argv_minus_the_edit(case, rename, fixture_cache) -> None:
    path, text, groups, edit = case
    contexts = _contexts(path, text, fixture_cache)
    assert len(contexts) == 1
    words = [w for g in groups for w in g]
    assert [a.text for a in contexts[0].command.args] == words  # the generator writes what it means
    index = sum(len(g) for g in groups[:edit])
    option = groups[edit][0].split("=", 1)[0]
    stream = next((k for k, g in enumerate(groups) if g == ["--stream-output"]), None)
    if rename and stream is not None:
        index = sum(len(g) for g in groups[:stream])
        finding = _finding("FS002", "--stream-output", contexts, index)
        expected = [("--incremental-output" if w == "--stream-output" else w) for w in words]
    else:
        finding = _finding("FS201", option, contexts, index)
        kept = [w for k, g in enumerate(groups) if k != edit for w in g]
        expected = kept
    fixed, notes = fix_text(text, [finding], contexts)
    assert notes == []
    assert fixed != text
    assert _argvs(path, fixed) == [[*contexts[0].command.launcher, *expected]], fixed


# -- regressions -------------------------------------------------------------------------------

def _fix_one(path: str, text: str, flag: str, cache: Path, code: str = "FS201"):
    contexts = _contexts(path, text, cache)
    index = next(i for i, a in enumerate(contexts[0].command.args) if a.text.split("=")[0] == flag)
    return fix_text(text, [_finding(code, flag, contexts, index)], contexts)


QUOTED_CASES = [
    ("deploy.yaml",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: s\n      image: x\n"
     "      command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n      args:\n        - \"--model-path\"\n"
     "        - \"m\"\n        - \"--enable-allreduce-fusion\"\n        - \"--tp-size\"\n        - \"2\"\n",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: s\n      image: x\n"
     "      command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n      args:\n        - \"--model-path\"\n"
     "        - \"m\"\n        - \"--tp-size\"\n        - \"2\"\n"),
    ("docker-compose.yaml",
     "services:\n  s:\n    image: lmsysorg/sglang\n    command: [\"--model-path\", \"m\", \"--enable-allreduce-fusion\"]\n",
     "services:\n  s:\n    image: lmsysorg/sglang\n    command: [\"--model-path\", \"m\"]\n"),
    ("u.service",
     "[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m \\\n"
     "    \"--enable-allreduce-fusion\" \\\n    --tp-size 2\n",
     "[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m \\\n    --tp-size 2\n"),
    ("run.sh",
     "#!/bin/sh\nexec python3 -m sglang.launch_server --model-path m \\\n    --tp-size 2 \\\n"
     "    '--enable-allreduce-fusion'\n",
     "#!/bin/sh\nexec python3 -m sglang.launch_server --model-path m \\\n    --tp-size 2\n"),
]


@pytest.mark.parametrize(("path", "text", "want"), QUOTED_CASES, ids=["k8s", "compose", "systemd", "shell"])
def test_a_quoted_no_op_flag_is_removed_whole(path, text, want, fixture_cache) -> None:
    fixed, notes = _fix_one(path, text, NO_OP, fixture_cache)
    assert (fixed, notes) == (want, [])


def test_a_value_on_the_next_continued_line_goes_with_its_flag(fixture_cache) -> None:
    text = ("[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m \\\n"
            "    --mem-fraction-static \\\n    \"0.8\"\n")
    fixed, notes = _fix_one("u.service", text, "--mem-fraction-static", fixture_cache)
    assert not notes
    assert fixed == "[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m\n"


def test_a_quoted_deprecated_flag_is_renamed_inside_its_quotes(fixture_cache) -> None:
    text = "#!/bin/sh\npython3 -m sglang.launch_server --model-path m \"--stream-output\" --tp-size 2\n"
    fixed, notes = _fix_one("run.sh", text, "--stream-output", fixture_cache, code="FS002")
    assert not notes
    assert fixed == "#!/bin/sh\npython3 -m sglang.launch_server --model-path m \"--incremental-output\" --tp-size 2\n"


def test_a_flag_written_inside_a_variable_is_left_alone_with_a_note(fixture_cache) -> None:
    text = ("#!/bin/sh\nEXTRA='--enable-allreduce-fusion --tp-size 2'\n"
            "python3 -m sglang.launch_server --model-path m $EXTRA\n")
    fixed, notes = _fix_one("run.sh", text, NO_OP, fixture_cache)
    assert fixed == text
    assert len(notes) == 1 and NO_OP in notes[0]


def test_a_list_shared_through_an_alias_is_left_alone_with_a_note(fixture_cache) -> None:
    # Both containers run the anchored list: removing the item would change the other one too.
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: a\n"
            "      image: lmsysorg/sglang\n      args: &common\n        - --model-path\n        - m\n"
            "        - --enable-allreduce-fusion\n    - name: b\n      image: lmsysorg/sglang\n      args: *common\n")
    fixed, notes = _fix_one("deploy.yaml", text, NO_OP, fixture_cache)
    assert fixed == text
    assert len(notes) == 1 and NO_OP in notes[0]


def test_an_edit_that_would_break_the_file_is_not_made(fixture_cache) -> None:
    # The item carries an anchor used elsewhere: without it the file would not read.
    text = ("services:\n  s:\n    image: lmsysorg/sglang\n    command:\n      - --model-path\n      - m\n"
            "      - &flag --enable-allreduce-fusion\n      - --tp-size\n      - '2'\n    labels:\n      why: *flag\n")
    fixed, notes = _fix_one("docker-compose.yaml", text, NO_OP, fixture_cache)
    assert fixed == text
    assert len(notes) == 1 and NO_OP in notes[0]


def test_the_fixture_unit_with_quoted_flags_reads_back(fixture_cache) -> None:
    text = (ROOT / "fixtures/units/sglang-qwen.service").read_text()
    text = text.replace("--model-path ${MODEL}", "--model-path \"${MODEL}\"").replace(
        "--attention-backend triton \\", "\"--enable-allreduce-fusion\" \\\n    --attention-backend triton \\")
    contexts = _contexts("sglang-qwen.service", text, fixture_cache)
    before = [a.text for a in contexts[0].command.args]
    index = before.index(NO_OP)
    fixed, notes = fix_text(text, [_finding("FS201", NO_OP, contexts, index)], contexts)
    assert not notes
    assert _argvs("sglang-qwen.service", fixed) == [[*contexts[0].command.launcher,
                                                     *before[:index], *before[index + 1:]]]
