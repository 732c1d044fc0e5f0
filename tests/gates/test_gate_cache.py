"""The gate-result cache: a warm report or lint answers from its record (no read facts loaded),
with the same bytes as an uncached run."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.evaluate.gates import cache as gates_cache
from tests.conftest import ROOT

TREE = str(ROOT / "fixtures" / "trees" / "lint")
ARGV = ["--", "python", "-m", "sglang.launch_server", "--model-path", "m", "--enable-allreduce-fusion"]


def _run(cache, *args) -> tuple[int, str]:
    gates_cache.forget()
    result = CliRunner().invoke(main, ["-q", "--sglang", TREE, "--cache-dir", str(cache), *args])
    return result.exit_code, result.output


def _no_reads(monkeypatch) -> None:
    import flagscan.extract.reads as reads

    def refuse(*_a, **_k):
        raise AssertionError("the tree's read facts were loaded on a warm run")

    monkeypatch.setattr(reads, "load_reads", refuse)


def test_a_warm_report_with_a_command_reads_no_facts_and_gives_the_same_bytes(tmp_path, monkeypatch) -> None:
    args = ["report", "--gpu", "sm120", "--format", "json", *ARGV]
    code, cold = _run(tmp_path / "cache", *args)
    assert code in (0, 1), cold
    assert json.loads(cold)["flags"]
    uncached_code, uncached = _run(tmp_path / "other", *args)      # a cache of its own: computed again
    assert (uncached_code, uncached) == (code, cold)
    _no_reads(monkeypatch)
    assert _run(tmp_path / "cache", *args) == (code, cold)


def test_another_gpu_or_command_is_another_record(tmp_path) -> None:
    cache = tmp_path / "cache"
    _run(cache, "report", "--gpu", "sm120", "--format", "json", *ARGV)
    _run(cache, "report", "--gpu", "sm90", "--format", "json", *ARGV)
    _run(cache, "report", "--gpu", "sm90", "--format", "json", *ARGV[:-1])
    assert len(list((cache / "facts" / "gates").glob("*.json"))) == 3


@pytest.mark.parametrize("gpu", ["sm120", "sm90,sm120"])
def test_a_warm_lint_reads_no_facts_and_gives_the_same_findings(tmp_path, monkeypatch, gpu) -> None:
    unit = ROOT / "fixtures" / "units" / "sglang-qwen.service"
    args = ["lint", "--gpu", gpu, "--format", "json", str(unit)]
    code, cold = _run(tmp_path / "cache", *args)
    assert code in (0, 1), cold
    assert list((tmp_path / "cache" / "facts" / "gate-verdicts").glob("*.pickle"))
    assert _run(tmp_path / "other", *args) == (code, cold)
    _no_reads(monkeypatch)
    assert _run(tmp_path / "cache", *args) == (code, cold)


def test_a_damaged_record_is_computed_again(tmp_path) -> None:
    args = ["report", "--gpu", "sm120", "--format", "json", *ARGV]
    first = _run(tmp_path, *args)
    (record,) = (tmp_path / "facts" / "gates").glob("*.json")
    record.write_text("{not json")
    assert _run(tmp_path, *args) == first
