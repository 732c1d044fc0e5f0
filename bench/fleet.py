"""Fleet: `flagscan lint` over many generated unit files for four GPUs in one process.

    python bench/fleet.py [--sglang REL] [--files N] [--cache-dir DIR]

Unit files (systemd, shell, compose, Kubernetes) are generated into a temporary
directory from a handful of templates with varied flags, GPU counts and models, as
a fleet's repository holds them: many files, few distinct commands. The first run
fills the cache (cold), the second is the figure (warm); each prints files/s. Run
with PYTHONDONTWRITEBYTECODE unset (flagscan's modules are compiled once).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPUS = "h200,b200,a100-80gb,rtx-pro-6000"
MODELS = ("Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct")
VARIANTS = (
    ["--tp", "2"],
    ["--tp", "4", "--enable-flashinfer-allreduce-fusion"],
    ["--tp", "2", "--attention-backend", "triton", "--mem-fraction-static", "0.85"],
)


def _systemd(argv: list[str], i: int) -> tuple[str, str]:
    body = " \\\n    ".join(argv)
    return f"svc-{i:04d}.service", (f"[Unit]\nDescription=SGLang {i}\n\n[Service]\n"
                                    f"ExecStart=/usr/bin/python3 -m sglang.launch_server \\\n    {body}\n"
                                    "Restart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n")


def _shell(argv: list[str], i: int) -> tuple[str, str]:
    body = " \\\n  ".join(f'"{a}"' if "/" in a else a for a in argv)
    return f"run-{i:04d}.sh", f"#!/usr/bin/env bash\nset -euo pipefail\nexec python3 -m sglang.launch_server \\\n  {body}\n"


def _compose(argv: list[str], i: int) -> tuple[str, str]:
    return f"compose-{i:04d}.yaml", ("services:\n  sglang:\n    image: lmsysorg/sglang:latest\n"
                                     f"    command: >\n      python3 -m sglang.launch_server\n      {' '.join(argv)}\n")


def _k8s(argv: list[str], i: int) -> tuple[str, str]:
    args = "".join(f'            - "{a}"\n' for a in argv)
    return f"deploy-{i:04d}.yaml", ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: sglang\nspec:\n"
                                    "  template:\n    spec:\n      containers:\n        - name: sglang\n"
                                    "          image: lmsysorg/sglang:latest\n"
                                    '          command: ["python3", "-m", "sglang.launch_server"]\n'
                                    f"          args:\n{args}")


TEMPLATES = (_systemd, _shell, _compose, _k8s)


def generate(directory: Path, count: int) -> list[Path]:
    """`count` unit files; commands repeat across files and kinds (a fleet has few distinct ones)."""
    directory.mkdir(parents=True, exist_ok=True)
    combos = list(itertools.product(MODELS, VARIANTS))
    out = []
    for i in range(count):
        model, variant = combos[i % len(combos)]
        argv = ["--model-path", model, *variant, "--port", "30000"]
        name, text = TEMPLATES[(i // len(combos)) % len(TEMPLATES)](argv, i)
        path = directory / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


def run_lint(files: list[Path], release: str, cache: str | None) -> tuple[float, float, int, float]:
    """(seconds, peak RSS MiB, exit code, CPU seconds with its workers) of one `flagscan lint` over every file."""
    argv = [sys.executable, "-m", "flagscan", "-q", "--sglang", release]
    if cache:
        argv += ["--cache-dir", cache]
    argv += ["lint", "--gpu", GPUS, "--format", "json", *map(str, files)]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sglang", default="0.5.23")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    print(f"fleet: {args.files} files, GPUs {GPUS}, sglang {args.sglang}, load average {os.getloadavg()[0]:.1f}"
          f" (PYTHONDONTWRITEBYTECODE {'set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'})")
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(Path(tmp) / "units", args.files)
        distinct = len(MODELS) * len(VARIANTS)
        print(f"  {distinct} distinct commands x 4 GPUs over {len(TEMPLATES)} file kinds")
        for label in ("first run (fills the cache)", "warm"):
            seconds, rss, code, cpu = run_lint(files, args.sglang, args.cache_dir)
            print(f"  {label:30}: {seconds:7.2f} s ({cpu:6.2f} s CPU)  {len(files) / seconds:7.1f} files/s"
                  f"  {rss:6.0f} MiB  exit {code}  (target: warm <= 60 s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
