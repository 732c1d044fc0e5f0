"""Suppressions, configuration, selection, --fix/--diff, several commands per file, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.config import ConfigError, load_config
from flagscan.diagnostics import Diagnostic, FileLocation, Severity
from flagscan.lint import lint_file
from flagscan.lint.fix import fix_text
from tests.lint.helpers import ROOT, options

TREE = "fixtures/trees/lint"


def _codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def _cli(cache, *args, cwd: Path | None = None):
    old = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        return CliRunner().invoke(main, ["--sglang", str(ROOT / TREE), "--cache-dir", str(cache), "-q", "lint",
                                         *args])
    finally:
        os.chdir(old)


def test_file_wide_and_line_suppressions(tmp_path, fixture_cache) -> None:
    unit = tmp_path / "run.sh"
    unit.write_text("#!/bin/sh\n# flagscan: ignore-file=FS101\n"
                    "python -m sglang.launch_server --model-path m --speculative-algorithm EAGLE --tp-size 1"
                    "  # flagscan: ignore=FS901\n")
    result = lint_file(str(unit), options(TREE, fixture_cache, select=("FS1", "FS9")))
    assert "FS101" not in _codes(result) and "FS901" not in _codes(result)
    assert result.suppressed >= 3
    assert "FS902" not in _codes(result)


def test_unknown_code_in_a_suppression_is_reported(tmp_path, fixture_cache) -> None:
    unit = tmp_path / "run.sh"
    unit.write_text("python -m sglang.launch_server --model-path m  # flagscan: ignore=FS77x\n")
    result = lint_file(str(unit), options(TREE, fixture_cache))
    assert "FS902" in _codes(result)


def test_several_commands_in_one_file_are_linted_separately(tmp_path, fixture_cache) -> None:
    script = tmp_path / "two.sh"
    script.write_text("python -m sglang.launch_server --model-path a --tp-sise 2\n"
                      "python -m sglang.launch_server --model-path b --stream-output\n")
    result = lint_file(str(script), options(TREE, fixture_cache, gpu=None))
    assert len(result.commands) == 2
    assert [(d.code, d.location.line) for d in result.diagnostics if d.code in ("FS001", "FS002")] == \
        [("FS001", 1), ("FS002", 2)]
    assert any("no GPU given" in n for c in result.commands for n in c.notes)


def test_a_file_without_a_launch_command_is_not_clean(tmp_path, fixture_cache) -> None:
    unit = tmp_path / "other.service"
    unit.write_text("[Service]\nExecStart=/usr/bin/nginx -g 'daemon off;'\n")
    result = _cli(fixture_cache, "--format", "json", str(unit))
    assert result.exit_code == 1
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["FS010"]


def test_config_in_pyproject_selects_ignores_and_sets_the_gpu(tmp_path, fixture_cache) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.flagscan]\ngpu = "rtx-pro-6000"\nignore = ["FS9"]\nfail-on = "error"\n'
        '[tool.flagscan.per-file-ignores]\n"legacy/*" = ["FS002"]\n')
    (tmp_path / "legacy").mkdir()
    cmd = tmp_path / "legacy" / "a.cmd"
    cmd.write_text("--model-path m --attention-backend fa3 --stream-output --tp-size 1\n")
    result = _cli(fixture_cache, "--format", "json", "legacy/a.cmd", cwd=tmp_path)
    codes = [d["code"] for d in json.loads(result.stdout)["diagnostics"]]
    assert "FS301" in codes  # fa3 on SM120: the GPU came from the configuration
    assert "FS901" not in codes and "FS002" not in codes
    assert result.exit_code == 1


def test_config_errors_are_one_line(tmp_path) -> None:
    bad = tmp_path / "flagscan.toml"
    bad.write_text('selct = ["FS1"]\n')
    with pytest.raises(ConfigError, match="unknown key 'selct'"):
        load_config(start=tmp_path)
    bad.write_text('fail-on = "sometimes"\n')
    with pytest.raises(ConfigError, match="fail-on"):
        load_config(start=tmp_path)


def test_fail_on_threshold(tmp_path, fixture_cache) -> None:
    cmd = tmp_path / "a.cmd"
    cmd.write_text("--model-path m --stream-output --tokenizer-worker-num 2 --chunked-prefill-size 4096\n")
    assert _cli(fixture_cache, "--gpu", "h200", str(cmd)).exit_code == 1           # warning >= warning
    assert _cli(fixture_cache, "--gpu", "h200", "--fail-on", "error", str(cmd)).exit_code == 0
    assert _cli(fixture_cache, "--gpu", "h200", "--ignore", "FS002", "--fail-on", "info",
                "--model-config", "tests/data/groundtruth/models/llama-3-8b", str(cmd)).exit_code == 0


def test_fix_rewrites_exact_replacements_only(tmp_path, fixture_cache) -> None:
    unit = tmp_path / "u.service"
    unit.write_text("[Service]\nExecStart=/v/bin/python3 -m sglang.launch_server \\\n    --model-path m \\\n"
                    "    --stream-output \\\n    --hybrid-ratio\n")
    diff = _cli(fixture_cache, "--diff", str(unit))
    assert diff.exit_code == 1
    assert "-    --stream-output \\" in diff.stdout and "+    --incremental-output \\" in diff.stdout
    assert "+    --mem-fraction-static" not in diff.stdout  # ignored flag: a replacement would change meaning
    assert "not rewritten" in diff.stderr or "not rewritten" in diff.output
    assert _cli(fixture_cache, "--fix", str(unit)).exit_code == 0
    assert "--incremental-output" in unit.read_text() and "--stream-output" not in unit.read_text()


def test_fix_removes_a_no_op_flag_without_breaking_continuations(tmp_path, fixture_cache) -> None:
    unit = tmp_path / "u.service"
    text = ("[Service]\nExecStart=/v/bin/python3 -m sglang.launch_server \\\n    --model-path m \\\n"
            "    --enable-allreduce-fusion\n")
    unit.write_text(text)
    result = lint_file(str(unit), options(TREE, fixture_cache, fix=True))
    ctx_result = result.commands[0]
    no_op = Diagnostic("FS201", Severity.WARNING, "no-op", "--enable-allreduce-fusion",
                       FileLocation(str(unit), 4, 5))
    from flagscan.lint.engine import _context

    ctx = _context(__import__("flagscan.inputs", fromlist=["read_launch_file"]).read_launch_file(unit)[0],
                   options(TREE, fixture_cache))
    fixed, notes = fix_text(text, [no_op], [ctx])
    assert fixed.endswith("    --model-path m\n") and not notes
    assert ctx_result.line == 2


@pytest.mark.parametrize("args", [
    ["missing.service"],
    ["--gpu", "no-such-gpu", "tests/lint/data/demo.service"],
    ["--select", "XX1", "tests/lint/data/demo.service"],
    ["--config", "nowhere.toml", "tests/lint/data/demo.service"],
    ["fixtures/units/malformed/unterminated.sh"],
])
def test_bad_input_is_one_line_and_exit_2(args, fixture_cache) -> None:
    result = _cli(fixture_cache, *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len([line for line in result.output.splitlines() if line.startswith("flagscan: error")]) == 1
