"""Benchmark of the gate analysis on real releases: cold, warm and incremental figures.

    python bench/bench_gates.py [--cache DIR] [VERSION ...]   (default: 0.5.10 0.5.23)

Cold: a fresh cache holding only the source trees and inventories (copied from
the test cache): read extraction, then one `report` for four GPUs. Warm: the
same `report` again (verdicts and read facts cached). Incremental: 0.5.10
after 0.5.5 in one cache, counting the files parsed again.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GPUS = "a100-80gb,h100,b200,rtx-pro-6000"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def fresh_cache(src: Path) -> Path:
    """A cache that shares the source trees (symlinks) but holds no facts."""
    dst = Path(tempfile.mkdtemp(prefix="flagscan-bench-"))
    for entry in src.iterdir():
        if entry.name not in ("facts", "tmp"):
            (dst / entry.name).symlink_to(entry)
    return dst


def _remove(cache: Path) -> None:
    for entry in cache.iterdir():
        if entry.is_symlink():
            entry.unlink()
    shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=os.environ.get("FLAGSCAN_TEST_CACHE", str(Path.home() / ".cache/flagscan-test")))
    ap.add_argument("versions", nargs="*", default=["0.5.10", "0.5.23"])
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from flagscan.extract.reads import load_reads
    from flagscan.source import get_source

    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    for version in args.versions:
        cache = fresh_cache(Path(args.cache))
        tree = get_source(version, cache_dir=cache, offline=True)
        t = time.perf_counter()
        reads = load_reads(tree.root, cache)
        extract = time.perf_counter() - t
        env = {**os.environ, "FLAGSCAN_CACHE_DIR": str(cache)}
        base = [sys.executable, "-m", "flagscan", "-q", "--sglang", version, "--offline"]
        cold = timed(base + ["report", "--gpu", GPUS, "--format", "json"], env)
        warm = timed(base + ["report", "--gpu", GPUS, "--format", "json"], env)
        print(f"{version}: cold read extraction {extract:.1f} s ({len(reads.parsed)} files parsed), "
              f"cold report 4 GPUs (after extraction) {cold:.1f} s, warm report 4 GPUs {warm:.2f} s")
        _remove(cache)
    if "0.5.10" in args.versions:
        cache = fresh_cache(Path(args.cache))
        first = load_reads(get_source("0.5.5", cache_dir=cache, offline=True).root, cache)
        t = time.perf_counter()
        second = load_reads(get_source("0.5.10", cache_dir=cache, offline=True).root, cache)
        print(f"incremental: 0.5.10 after 0.5.5 parsed {len(second.parsed)} of {len(second.files)} analysed files "
              f"({len(first.parsed)} parsed for 0.5.5) in {time.perf_counter() - t:.1f} s")
        _remove(cache)


if __name__ == "__main__":
    main()
