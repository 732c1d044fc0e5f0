"""The console entry point: it leaves without tearing the interpreter down, so what it must
still do at exit is checked here: every byte written, the exit status kept, exit handlers run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from flagscan import __version__

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "fixtures" / "trees" / "lint"


def _flagscan(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flagscan", "-q", "--sglang", str(TREE), "--cache-dir", str(cache),
                           *args], capture_output=True, text=True, cwd=ROOT)


def test_the_whole_payload_reaches_a_pipe_and_the_status_is_kept(tmp_path) -> None:
    done = _flagscan("--format", "json", "resolve", "--all", "--gpu", "h100", "--", "--model-path", "m",
                     cache=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)                 # complete: it parses
    assert doc["schema"] == "flagscan/resolve/v1" and doc["settings"]


def test_bad_input_is_still_one_line_and_exit_2(tmp_path) -> None:
    done = _flagscan("resolve", "--gpu", "nope", "--", "--model-path", "m", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("flagscan: error: unknown GPU") and len(done.stderr.splitlines()) == 1


def test_exit_handlers_run_before_the_process_ends(tmp_path) -> None:
    code = ("import atexit, sys\n"
            "from flagscan import cli\n"
            "atexit.register(lambda: print('handler ran'))\n"
            "sys.argv = ['flagscan', '--version']\n"
            "cli.run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [f"flagscan, version {__version__}", "handler ran"]
