"""The performance targets, each beside its limit (and its reference where there is one).

    python bench/bench_perf.py [--cache-dir DIR] [--cold-all] [RELEASE ...]    (default: 0.5.23)

For each release (downloaded once into the cache given, default flagscan's own), the
warm figures; the cold one for the last release named (the newest, where the target
is), or for every release with --cold-all:
- warm `resolve --gpu h200` of the motivating unit, without and with its model config
  (best of 3; the first run fills the cache), limit 0.5 s;
- warm `report --gpu h200 -- ARGV` (runtime gates under the command's resolved values),
  limit 1 s;
- warm `lint --gpu h200` of the motivating unit (resolution, startup and serving phases, gates),
  limit 1 s;
- cold analysis: `report --gpu h200` on an empty facts cache, the release already
  downloaded (its tree copied into a fresh cache), with its peak RSS (limit 1 GiB), beside
  an ast-only parse of the same tree's .py files in the same run (limit 2.5x); and a cold
  `lint --gpu h200` of the motivating unit (its startup phase included) against the same parse,
  and of the same unit without its HF_HUB_OFFLINE=1 (the Hub then reachable to SGLang's code).
PYTHONDONTWRITEBYTECODE costs every run the compilation of flagscan; the figures are
meant with it unset, and the output says which it was.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import tree_root

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "fixtures" / "units" / "sglang-qwen.service"
MODEL = ROOT / "tests" / "data" / "groundtruth" / "models" / "qwen3.5-122b-a10b"
ARGV = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp", "2",
        "--enable-flashinfer-allreduce-fusion"]


def timed(argv: list[str]) -> tuple[float, float, int, float]:
    """(seconds, peak RSS MiB, exit code, CPU seconds with its worker processes) of one `flagscan` process.
    On a loaded machine the CPU seconds are the steadier figure; both are printed."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "flagscan", "-q", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def best(argv: list[str], runs: int = 3) -> tuple[float, float, int, float]:
    timed(argv)  # fills the cache
    return min((timed(argv) for _ in range(runs)), key=lambda r: r[0])


def shown(figure: tuple[float, float, int, float]) -> str:
    s, rss, code, cpu = figure
    return f"{s:6.2f} s ({cpu:5.2f} s CPU)  {rss:5.0f} MiB  exit {code}"


def ast_parse(root: Path) -> tuple[float, int, float]:
    """(seconds, files, CPU seconds) of python's ast.parse over every .py file of the tree."""
    files = sorted((root / "sglang").rglob("*.py"))
    start, cpu = time.perf_counter(), time.process_time()
    for path in files:
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - start, len(files), time.process_time() - cpu


def fresh_cache_with(tree: Path, cache: str, release: str, into: Path) -> str:
    """A cache holding only this release's downloaded tree and its pin (no facts)."""
    (into / "trees").mkdir(parents=True)
    shutil.copytree(tree, into / "trees" / tree.name, symlinks=True)
    for sub in ("refs",):
        if (Path(cache) / sub).is_dir():
            shutil.copytree(Path(cache) / sub, into / sub)
    return str(into)


def verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "OVER"


def bench(release: str, cache: str, cold_too: bool) -> None:
    base = ["--cache-dir", cache, "--sglang", release]
    subprocess.run([sys.executable, "-m", "flagscan", "-q", *base, "sources", "fetch", release], cwd=ROOT,
                   capture_output=True)
    print(f"sglang {release}:")
    for label, extra in (("resolve, warm", []), ("resolve --model-config, warm", ["--model-config", str(MODEL)])):
        figure = best([*base, "resolve", "--gpu", "h200", *extra, str(UNIT)])
        print(f"  {label:40}: {shown(figure)}  (limit 0.5 s: {verdict(figure[0], 0.5)})")
    figure = best([*base, "report", "--gpu", "h200", "--format", "json", "--", *ARGV])
    print(f"  {'report --gpu h200 -- ARGV, warm':40}: {shown(figure)}  (limit 1 s: {verdict(figure[0], 1.0)})")
    figure = best([*base, "lint", "--gpu", "h200", str(UNIT)])
    print(f"  {'lint --gpu h200 of the unit, warm':40}: {shown(figure)}  (limit 1 s: {verdict(figure[0], 1.0)})")
    if not cold_too:
        return
    tree = tree_root(cache, release)
    with tempfile.TemporaryDirectory() as tmp:
        cold_cache = fresh_cache_with(tree, cache, release, Path(tmp) / "cache")
        cold = timed(["--cache-dir", cold_cache, "--sglang", release, "--offline", "report", "--gpu", "h200",
                      "--format", "json"])
    with tempfile.TemporaryDirectory() as tmp:
        cold_cache = fresh_cache_with(tree, cache, release, Path(tmp) / "cache")
        cold_lint = timed(["--cache-dir", cold_cache, "--sglang", release, "--offline", "lint", "--gpu", "h200",
                           str(UNIT)])
    with tempfile.TemporaryDirectory() as tmp:
        # the same unit without HF_HUB_OFFLINE=1: huggingface_hub may then reach the Hub, and
        # SGLang's lookup of a GGUF file there (0.5.23) is not decided
        online = Path(tmp) / "online.service"
        online.write_text(UNIT.read_text().replace(" HF_HUB_OFFLINE=1", ""))
        cold_cache = fresh_cache_with(tree, cache, release, Path(tmp) / "cache")
        cold_online = timed(["--cache-dir", cold_cache, "--sglang", release, "--offline", "lint", "--gpu", "h200",
                             str(online)])
        parse, files, parse_cpu = ast_parse(tree)
    print(f"  {'cold analysis (report --gpu h200)':40}: {shown(cold)}"
          f"  (peak RSS limit 1024 MiB: {verdict(cold[1], 1024)})")
    print(f"  {f'ast-only parse ({files} files)':40}: {parse:6.2f} s ({parse_cpu:5.2f} s CPU)")
    print(f"  {'cold analysis / ast-only parse':40}: {cold[0] / parse:6.1f}x wall, {cold[3] / parse_cpu:4.1f}x CPU"
          f"  (limit 2.5x: {verdict(cold[0] / parse, 2.5)})")
    print(f"  {'cold lint of the unit (startup phase)':40}: {shown(cold_lint)}")
    print(f"  {'cold lint / ast-only parse':40}: {cold_lint[0] / parse:6.1f}x wall, "
          f"{cold_lint[3] / parse_cpu:4.1f}x CPU  (limit 2.5x: {verdict(cold_lint[0] / parse, 2.5)})")
    print(f"  {'cold lint, unit without HF_HUB_OFFLINE':40}: {shown(cold_online)}")
    print(f"  {'cold lint online / ast-only parse':40}: {cold_online[0] / parse:6.1f}x wall, "
          f"{cold_online[3] / parse_cpu:4.1f}x CPU  (limit 2.5x: {verdict(cold_online[0] / parse, 2.5)})")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache-dir", default=os.environ.get("FLAGSCAN_CACHE_DIR")
                        or str(Path.home() / ".cache" / "flagscan"))
    parser.add_argument("--cold-all", action="store_true", help="the cold analysis of every release named")
    parser.add_argument("releases", nargs="*", default=["0.5.23"])
    args = parser.parse_args(argv)
    print(f"bench_perf on {os.cpu_count()} cores; PYTHONDONTWRITEBYTECODE "
          f"{'set (each run compiles flagscan)' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'}; "
          f"load average {os.getloadavg()[0]:.1f}")
    for i, release in enumerate(args.releases):
        bench(release, args.cache_dir, args.cold_all or i == len(args.releases) - 1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
