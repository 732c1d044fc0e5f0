"""`lint --format concise`: one line per finding, the same findings as the text format."""

from __future__ import annotations

import os
import re

from click.testing import CliRunner

from flagscan.cli import main
from tests.conftest import ROOT

DEMO = "tests/lint/data/demo.service"
LINE = re.compile(r"^[^:]+:\d+:\d+: FS\d{3} \[(error|warning|info)\] .+$")


def _run(cache, fmt: str):
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(main, ["--sglang", "fixtures/trees/lint", "--cache-dir", str(cache), "-q", "lint",
                                         "--gpu", "h200", "--format", fmt, DEMO])
    finally:
        os.chdir(old)


def test_concise_is_the_text_formats_first_lines(fixture_cache) -> None:
    concise, text = _run(fixture_cache, "concise"), _run(fixture_cache, "text")
    assert concise.exit_code == text.exit_code == 1
    lines = concise.stdout.strip().splitlines()
    assert lines and all(LINE.match(line) for line in lines), lines
    assert lines == [line for line in text.stdout.splitlines() if LINE.match(line)]
