"""Cold, warm and incremental figures for source, flag inventory, resolve and lint on real releases.

    python bench/bench_core.py [RELEASE ...]      (default: 0.5.10 0.5.23)

Cold runs use an empty cache directory (the wheel download is included in the
source figure); warm runs reuse it. The resolve figures are the motivating command
(Qwen3.5-122B-A10B, MTP, 4x RTX PRO 6000, mamba extra_buffer) with its model config,
argument resolution alone (--no-startup) and with the startup phase; the lint figures
are the motivating unit on an H200 with no model config (the model is not in the HF
cache). Each line also gives the peak RSS of that flagscan process. The reference is
an ast-only parse of every .py file of the same tree, measured in the same run.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "groundtruth" / "models" / "qwen3.5-122b-a10b"
UNIT = ROOT / "fixtures" / "units" / "sglang-qwen-extra-buffer.service"
PLAIN_UNIT = ROOT / "fixtures" / "units" / "sglang-qwen.service"


def timed(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one `flagscan` process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "flagscan", "-q", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def ast_parse_seconds(root: Path) -> tuple[float, int]:
    files = sorted((root / "sglang").rglob("*.py"))
    start = time.perf_counter()
    for path in files:
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - start, len(files)


def tree_root(cache: str, release: str) -> Path:
    out = subprocess.run([sys.executable, "-m", "flagscan", "-q", "--cache-dir", cache, "--format", "json",
                          "sources", "list"], cwd=ROOT, capture_output=True, text=True).stdout
    import json

    for entry in json.loads(out or "{}").get("sources", []):
        if entry.get("version") == release and entry.get("path"):
            return Path(entry["path"])
    raise SystemExit(f"no cached tree for {release}")


def line(name: str, figure: tuple[float, float]) -> str:
    return f"  {name:44}: {figure[0]:7.2f} s  {figure[1]:6.0f} MiB"


def bench(release: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = ["--cache-dir", tmp, "--sglang", release]
        fetch = timed([*cache, "sources", "fetch", release])
        warm_flags = timed([*cache, "flags", "--format", "json"])
        resolve = [*cache, "resolve", "--gpu", "rtx-pro-6000", "--model-config", str(MODEL), str(UNIT)]
        cold_resolution = timed([*resolve, "--no-startup"])
        cold_startup = timed(resolve)
        warm_resolve = min(timed(resolve) for _ in range(3))
        lint = [*cache, "lint", "--gpu", "h200", str(PLAIN_UNIT)]
        cold_lint = timed(lint)
        warm_lint = min(timed(lint) for _ in range(3))
        try:
            parse, files = ast_parse_seconds(tree_root(tmp, release))
        except SystemExit as exc:
            parse, files = float("nan"), 0
            print(f"  ({exc})")
    print(f"sglang {release}:")
    print(line("fetch + flag inventory, empty cache", fetch))
    print(line("flags (warm)", warm_flags))
    print(line("resolve --no-startup, cold", cold_resolution))
    print(line("resolve with startup (resolution cached)", cold_startup))
    print(line("resolve with startup, warm (best of 3)", warm_resolve))
    print(line("lint, no model config, cold", cold_lint))
    print(line("lint, no model config, warm (best of 3)", warm_lint))
    print(f"  ast-only parse of the tree ({files} files)      : {parse:7.2f} s")
    if parse == parse and parse > 0:
        print(f"  cold resolve+startup / ast parse             : {(cold_resolution[0] + cold_startup[0]) / parse:7.1f}x")


def main(argv: list[str]) -> int:
    for release in argv or ["0.5.10", "0.5.23"]:
        bench(release)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
