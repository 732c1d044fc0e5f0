"""Real release: `sglang serve` with a diffusion model reads its flags with the diffusion server's
parser, extracted from 0.5.23's source; `python -m sglang.launch_server` with the LLM server's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.cli import main

pytestmark = pytest.mark.real


def _lint(cache, tmp_path, launcher: str) -> dict:
    unit = tmp_path / "unit.service"
    unit.write_text(f"[Service]\nExecStart={launcher} --model-path m --cfg-parallel-size 2 "
                    "--enable-flashinfer-allreduce-fusion\n")
    result = CliRunner().invoke(main, ["--sglang", "0.5.23", "--cache-dir", str(cache), "-q", "lint", str(unit),
                                       "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _unknown(doc: dict) -> set[str]:
    return {d["flag"] for d in doc["diagnostics"] if d["code"] == "FS001"}


def test_diffusion_serve_flags_are_checked_against_the_diffusion_parser(real_cache_dir, tmp_path) -> None:
    doc = _lint(real_cache_dir, tmp_path, "/usr/bin/sglang serve --model-type diffusion")
    assert _unknown(doc) == {"--enable-flashinfer-allreduce-fusion"}
    assert any("diffusion parser" in n for n in doc["notes"])


def test_launch_server_flags_are_checked_against_the_server_parser(real_cache_dir, tmp_path) -> None:
    doc = _lint(real_cache_dir, tmp_path, "/usr/bin/python3 -m sglang.launch_server")
    assert _unknown(doc) == {"--cfg-parallel-size"}
