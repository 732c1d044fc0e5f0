"""resolve: a resolution that cannot be followed says so; it never degrades to an empty answer with exit 0."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from tests.evaluate.tree import SERVER_ARGS, resolve_json, write_tree

LINT_TREE = "fixtures/trees/lint"


def _invoke(tree, cache, command: str, *argv: str):
    return CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(cache), "-q", command,
                                     "--gpu", "h200", "--format", "json", "--", *argv])


def test_no_settings_is_a_one_line_error_with_exit_2(tmp_path) -> None:
    # the parser is there (flags extract) but not the constructor the resolution starts from
    source = SERVER_ARGS.replace("def from_cli_args(", "def from_cli_args_renamed(")
    tree = write_tree(tmp_path / "t", source)
    unit = tmp_path / "launch.cmd"
    unit.write_text("--model-path m\n")
    for result in (_invoke(tree, tmp_path / "c", "resolve", "--model-path", "m"),
                   CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(tmp_path / "c"), "-q", "lint",
                                             "--gpu", "h200", "--format", "json", str(unit)])):
        assert result.exit_code == 2, result.output
        assert len(result.stderr.strip().splitlines()) == 1 and "resolution" in result.stderr
        assert "Traceback" not in result.output


def test_where_analysis_stopped_is_a_finding(tmp_path) -> None:
    # --debug-depth 1 stops at a bound (recursion, call depth): reported as any stop is, under
    # FLAGSCAN_STRICT=1 too (a bound is flagscan's own limit, not code it cannot follow)
    from tests.conftest import ROOT

    out = resolve_json(ROOT / LINT_TREE, tmp_path / "c", ["--model-path", "m", "--debug-depth", "1"])
    assert out["stopped"] and all(set(s) == {"location", "construct", "unknown"} for s in out["stopped"])
    stopped = [d for d in out["diagnostics"] if d["code"] == "FS402"]
    assert stopped and stopped[0]["evidence"][0]["location"] == out["stopped"][0]["location"]
    clean = resolve_json(ROOT / LINT_TREE, tmp_path / "c", ["--model-path", "m"])
    assert clean["stopped"] == [] and not [d for d in clean["diagnostics"] if d["code"] == "FS402"]


def test_strict_mode_raises_where_analysis_stops(tmp_path, monkeypatch) -> None:
    # a construct the interpreter does not model (a complex literal) in a handler: a give-up
    source = SERVER_ARGS.replace("            self.buffer_size = 1000",
                                 "            self.buffer_size = 1000\n            self.ratio = 2j")
    tree = write_tree(tmp_path / "t", source)
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    result = _invoke(tree, tmp_path / "c", "resolve", "--model-path", "m")
    assert result.exit_code != 0
    from flagscan.strict import GaveUp

    assert isinstance(result.exception, GaveUp)
    monkeypatch.delenv("FLAGSCAN_STRICT")
    lenient = resolve_json(tree, tmp_path / "c", ["--model-path", "m"])
    assert [s["construct"] for s in lenient["stopped"]] == ["an expression flagscan does not model (2j)"]


def test_strict_mode_does_not_raise_at_a_bound(tmp_path, monkeypatch) -> None:
    from tests.conftest import ROOT

    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    out = resolve_json(ROOT / LINT_TREE, tmp_path / "c", ["--model-path", "m", "--debug-depth", "1"])
    assert out["stopped"] and all(s["construct"].endswith(("beyond 3 levels", "deeper than 1 calls"))
                                  for s in out["stopped"])


def test_a_rule_that_fails_says_what_is_missing_and_raises_under_strict(monkeypatch) -> None:
    from types import SimpleNamespace

    from flagscan.lint.engine import _run
    from flagscan.strict import GaveUp

    def broken(ctx):
        raise KeyError("x")

    ctx = SimpleNamespace(notes=[])
    rule = SimpleNamespace(code="FS999", check=broken)
    monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)
    assert _run(ctx, [rule]) == [] and "FS999" in ctx.notes[0] and "missing" in ctx.notes[0]
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    with pytest.raises(GaveUp):
        _run(ctx, [rule])
