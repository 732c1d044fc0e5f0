"""Benchmark of the gate analysis on real releases: cold, warm and incremental figures.

    python bench/bench_gates.py [--cache DIR] [VERSION ...]   (default: 0.5.10 0.5.23)

Cold: one `report` for four GPUs on a fresh cache holding only the source trees
(shared with the test cache), and read extraction alone on another. Warm: the
same `report` again (verdicts and read facts cached). Incremental: a release
after its predecessor in one cache, counting the files parsed again.
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
NEIGHBOURS = [("0.5.9", "0.5.10"), ("0.5.22", "0.5.23")]


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
        env_base = [sys.executable, "-m", "flagscan", "-q", "--sglang", version, "--offline"]
        cache = fresh_cache(Path(args.cache))
        env = {**os.environ, "FLAGSCAN_CACHE_DIR": str(cache)}
        total = timed(env_base + ["report", "--gpu", GPUS, "--format", "json"], env)
        warm = timed(env_base + ["report", "--gpu", GPUS, "--format", "json"], env)
        _remove(cache)
        cache = fresh_cache(Path(args.cache))
        tree = get_source(version, cache_dir=cache, offline=True)
        t = time.perf_counter()
        reads = load_reads(tree.root, cache)
        extract = time.perf_counter() - t
        _remove(cache)
        print(f"{version}: cold analysis (one `report` for 4 GPUs on an empty facts cache) {total:.1f} s, "
              f"of which read extraction {extract:.1f} s ({len(reads.parsed)} files parsed); "
              f"warm report 4 GPUs {warm:.2f} s")
    for before, version in NEIGHBOURS:
        if version not in args.versions:
            continue
        cache = fresh_cache(Path(args.cache))
        load_reads(get_source(before, cache_dir=cache, offline=True).root, cache)
        t = time.perf_counter()
        second = load_reads(get_source(version, cache_dir=cache, offline=True).root, cache)
        print(f"incremental: {version} after {before} parsed {len(second.parsed)} of {len(second.files)} analysed "
              f"files (the others are byte-identical to {before}'s) in {time.perf_counter() - t:.1f} s")
        _remove(cache)

if __name__ == "__main__":
    main()
