"""Cold, warm and incremental figures for source, flag inventory and resolve on real releases.

    python bench/bench_core.py [RELEASE ...]      (default: 0.5.10 0.5.23)

Cold runs use an empty cache directory (the wheel download is included in the
source figure); warm runs reuse it. The resolve figure is the motivating command
(Qwen3.5-122B-A10B, MTP, 4x RTX PRO 6000) with its model config.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "groundtruth" / "models" / "qwen3.5-122b-a10b"
UNIT = ROOT / "fixtures" / "units" / "sglang-qwen-extra-buffer.service"


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "flagscan", "-q", *argv], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def bench(release: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = ["--cache-dir", tmp, "--sglang", release]
        fetch = timed([*cache, "sources", "fetch", release])
        warm_flags = timed([*cache, "flags", "--format", "json"])
        resolve_args = [*cache, "resolve", "--gpu", "rtx-pro-6000", "--model-config", str(MODEL), str(UNIT)]
        cold_resolve = timed(resolve_args)
        warm_resolve = min(timed(resolve_args) for _ in range(3))
    print(f"sglang {release}:")
    print(f"  fetch + flag inventory, empty cache : {fetch:6.2f} s")
    print(f"  flags (warm)                        : {warm_flags:6.2f} s")
    print(f"  resolve, lowering cold              : {cold_resolve:6.2f} s")
    print(f"  resolve (warm, best of 3)           : {warm_resolve:6.2f} s")


def main(argv: list[str]) -> int:
    for release in argv or ["0.5.10", "0.5.23"]:
        bench(release)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
