"""A multi-file lint: the same findings as linting each file alone, identical commands resolved once."""

from __future__ import annotations

import importlib.util
import json

from click.testing import CliRunner

import flagscan.evaluate as evaluate
from flagscan.cli import main
from flagscan.evaluate.gates import cache as gates_cache
from tests.conftest import ROOT

TREE = str(ROOT / "fixtures" / "trees" / "lint")


def _fleet():
    spec = importlib.util.spec_from_file_location("fleet", ROOT / "bench" / "fleet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lint(cache, files, gpu="sm90,sm120") -> tuple[int, dict]:
    gates_cache.forget()
    result = CliRunner().invoke(main, ["-q", "--sglang", TREE, "--cache-dir", str(cache), "lint", "--gpu", gpu,
                                       "--format", "json", *map(str, files)])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def test_many_files_give_each_file_its_own_findings_and_resolve_each_command_once(tmp_path, monkeypatch) -> None:
    fleet = _fleet()
    files = fleet.generate(tmp_path / "units", 16)   # 6 distinct commands over 4 file kinds
    calls: list[str] = []
    real = evaluate._predict

    def counting(root, cache_dir, inventory, given, scenario, key):
        calls.append(key)
        return real(root, cache_dir, inventory, given, scenario, key)

    monkeypatch.setattr(evaluate, "_predict", counting)
    code, together = _lint(tmp_path / "cache", files)
    assert len(calls) == len(set(calls))                   # each (command, GPU) resolved once
    assert len(set(calls)) <= len(fleet.MODELS) * len(fleet.VARIANTS) * 2
    alone = []
    codes = []
    for path in files:
        c, doc = _lint(tmp_path / "alone", [path])
        codes.append(c)
        alone.extend(doc["diagnostics"])
    assert together["diagnostics"] == alone
    assert code == max(codes)


def test_files_spread_over_worker_processes_give_the_same_findings_in_order(tmp_path, monkeypatch) -> None:
    import flagscan.lint.engine as engine

    files = _fleet().generate(tmp_path / "units", 12)
    _code, alone = _lint(tmp_path / "cache", files)
    monkeypatch.setattr(engine, "POOL_MIN_FILES", 2)
    monkeypatch.setattr(engine, "_CHUNK", 5)
    assert len(engine._chunks([str(f) for f in files])) == 3
    _code, spread = _lint(tmp_path / "cache", files)
    assert spread["diagnostics"] == alone["diagnostics"]
    assert [d["location"]["path"] for d in spread["diagnostics"]] == \
        [d["location"]["path"] for d in alone["diagnostics"]]
