"""The README's first command prints what the README shows."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def _first_command() -> list[str]:
    block = README.split("```sh", 1)[1].split("```", 1)[0]
    line = next(line for line in block.splitlines() if "flagscan" in line and not line.startswith("#"))
    argv = shlex.split(line.split("&&")[-1])
    assert argv[0].endswith("flagscan")
    return argv[1:]


def _shown_output() -> list[str]:
    section = README.split("The first command above prints", 1)[1]
    block = section.split("```\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").splitlines()


@pytest.mark.real
def test_the_first_command_prints_what_the_readme_shows(real_cache_dir) -> None:
    args = _first_command()
    proc = subprocess.run([sys.executable, "-m", "flagscan", "--cache-dir", str(real_cache_dir), *args],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr  # findings at warning level or above
    assert proc.stdout.rstrip("\n").splitlines() == _shown_output()


def test_the_readme_keeps_two_set_up_commands() -> None:
    block = README.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2 and re.search(r"pytest", commands[1])
