"""The motivating deployment on SGLang 0.5.10 (SM120 x4, Qwen3.5-122B-A10B, MTP), linted for real."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.lint import lint_file
from tests.lint.helpers import UNITS, options

pytestmark = pytest.mark.real
MODEL = "tests/data/groundtruth/models/qwen3.5-122b-a10b"


def _lint(name: str, cache):
    return lint_file(str(UNITS / name), options("0.5.10", cache, gpu="rtx-pro-6000", model=MODEL,
                                                 select=()))


def _line_of(result, word: str) -> int:
    return next(i for i, line in enumerate(result.text.splitlines(), 1) if word in line)


def test_as_written_the_unit_is_refused_at_startup(real_cache_dir) -> None:
    result = _lint("sglang-qwen.service", real_cache_dir)
    refused = [d for d in result.diagnostics if d.code == "FS301"]
    assert refused and all(d.severity.value == "error" for d in refused)
    assert "mamba-scheduler-strategy" in refused[0].message
    assert refused[0].evidence[0].location.startswith("sglang/srt/server_args.py:")


def test_extra_buffer_knock_on_has_both_causes_and_blames_no_fusion_flag(real_cache_dir) -> None:
    result = _lint("sglang-qwen-extra-buffer.service", real_cache_dir)
    assert not [d for d in result.diagnostics if d.code == "FS301"]
    knock = [d for d in result.diagnostics if d.code == "FS101" and d.flag == "disable_piecewise_cuda_graph"]
    assert len(knock) == 1
    conditions = [e.text for e in knock[0].evidence]
    assert any("speculative_algorithm is not None" in c for c in conditions)
    assert any("is_multimodal" in c for c in conditions)
    assert knock[0].location.line == _line_of(result, "--speculative-algorithm")
    fusion_lines = {_line_of(result, "--enable-fused-moe-sum-all-reduce"),
                    _line_of(result, "--enable-flashinfer-allreduce-fusion")}
    blamed = [d for d in result.diagnostics if d.location and d.location.line in fusion_lines and d.code != "FS201"]
    assert not blamed, [(d.code, d.message) for d in blamed]


def test_extra_buffer_flashinfer_fusion_is_a_no_op_on_sm120(real_cache_dir) -> None:
    result = _lint("sglang-qwen-extra-buffer.service", real_cache_dir)
    no_op = [d for d in result.diagnostics if d.code == "FS201"]
    assert [d.flag for d in no_op] == ["--enable-flashinfer-allreduce-fusion"]
    assert no_op[0].location.line == _line_of(result, "--enable-flashinfer-allreduce-fusion")
    assert any("communicator.py" in e.location for e in no_op[0].evidence)


def test_cli_exit_codes_and_json_contract(real_cache_dir) -> None:
    runner = CliRunner()
    base = ["--sglang", "0.5.10", "--cache-dir", str(real_cache_dir), "-q", "lint", "--gpu", "rtx-pro-6000",
            "--model-config", MODEL, "--format", "json"]
    refused = runner.invoke(main, [*base, str(UNITS / "sglang-qwen.service")])
    assert refused.exit_code == 1
    payload = json.loads(refused.output)
    assert payload["schema"] == "flagscan/lint/v1" and payload["sglang"]["version"] == "0.5.10"
    assert payload["gates"] == "analysed"
    for d in payload["diagnostics"]:
        assert set(d) >= {"code", "severity", "flag", "message", "location", "evidence"}
        assert set(d["location"]) == {"path", "line", "column"}
    fine = runner.invoke(main, [*base, "--fail-on", "error", "--ignore", "FS2",
                                str(UNITS / "sglang-qwen-extra-buffer.service")])
    assert fine.exit_code == 0, fine.output
