"""report: the same input gives the same bytes, whatever the hash seed, and after the facts cache is rebuilt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _report(tree: str, cache: Path, seed: int, gpu: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run([sys.executable, "-m", "flagscan", "--sglang", tree, "--cache-dir", str(cache), "-q",
                           "report", "--gpu", gpu, "--format", "json"], env=env, capture_output=True, cwd=ROOT,
                          timeout=900)
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    return done.stdout


def _same_bytes(tree: str, tmp_path: Path, gpu: str) -> None:
    first = _report(tree, tmp_path / "a", 1, gpu)
    other_seed = _report(tree, tmp_path / "b", 2, gpu)          # another seed, its own (cold) cache
    assert first and first == other_seed
    shutil.rmtree(tmp_path / "a" / "facts")                     # the facts cache rebuilt
    assert _report(tree, tmp_path / "a", 3, gpu) == first


def test_fixture_report_is_byte_identical(tmp_path) -> None:
    _same_bytes(str(ROOT / "fixtures" / "trees" / "lint"), tmp_path, "sm120")


@pytest.mark.real
def test_0_5_10_report_is_byte_identical(tmp_path, real_cache_dir) -> None:
    from flagscan.source import get_source

    tree = get_source("0.5.10", cache_dir=real_cache_dir).root  # served from the shared cache, as a local tree
    _same_bytes(str(tree), tmp_path, "rtx-pro-6000")


def test_verdict_json_does_not_depend_on_the_order_facts_arrive_in(tmp_path) -> None:
    """Reads and evidence come from files parsed in parallel: whatever order they arrive in,
    the JSON is the same (the mechanism behind the byte-identical reports above)."""
    from types import SimpleNamespace

    from flagscan.evaluate.gates.run import evaluate_gpu, gpu_json
    from flagscan.extract.reads import load_reads
    from flagscan.hardware import profile_from_spec
    from tests.gates.test_gates_fixture import DESTS

    root = ROOT / "fixtures" / "trees" / "gates"
    inventory = SimpleNamespace(flags=[SimpleNamespace(dest=d) for d in DESTS])
    reads = load_reads(root, tmp_path, workers=1)
    gg = evaluate_gpu(root, None, inventory, reads, profile_from_spec("sm120"))
    several = [v for v in gg.verdicts.values() if len(v.reads) > 1]
    assert several
    before = gpu_json(gg)
    for v in gg.verdicts.values():
        v.reads.reverse()
        v.steers.reverse()
    assert gpu_json(gg) == before
