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
