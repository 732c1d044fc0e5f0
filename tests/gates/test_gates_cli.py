"""report / explain / graph on the real 0.5.10 release: the motivating case and bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.cli import main


def run(cache, *args):
    return CliRunner().invoke(main, ["-q", "--sglang", "0.5.10", "--cache-dir", str(cache), *args])


@pytest.mark.real
def test_motivating_case(real_cache_dir):
    result = run(real_cache_dir, "report", "--gpu", "a100-80gb,h100,b200,rtx-pro-6000", "--format", "json")
    assert result.exit_code == 0, result.output
    gpus = json.loads(result.output)["gpus"]
    status = {g: gpus[g]["flags"]["enable_flashinfer_allreduce_fusion"]["status"] for g in gpus}
    assert status == {"a100-80gb": "NO_OP", "h100": "CONDITIONAL", "b200": "CONDITIONAL", "rtx-pro-6000": "NO_OP"}
    entry = gpus["rtx-pro-6000"]["flags"]["enable_flashinfer_allreduce_fusion"]
    assert entry["reads"][0]["location"] == "sglang/srt/layers/communicator.py:105"
    sites = {d["name"]: d["location"] for n in entry["evidence"][0]["names"] for d in n["defined_by"]}
    assert sites["is_sm90_supported"].startswith("sglang/srt/utils/common.py:")
    assert sites["is_sm100_supported"].startswith("sglang/srt/utils/common.py:")
    assert "setting:enable_dp_attention" in gpus["h100"]["flags"]["enable_flashinfer_allreduce_fusion"]["needs"]


@pytest.mark.real
@pytest.mark.parametrize("gpu", ["a100-80gb", "h100", "b200", "rtx-pro-6000"])
def test_dp_attention_makes_it_no_op(real_cache_dir, gpu):
    result = run(real_cache_dir, "report", "--gpu", gpu, "--format", "json", "--", "--model-path", "Qwen/Qwen3-8B",
                 "--tp", "4", "--dp", "4", "--enable-dp-attention", "--enable-flashinfer-allreduce-fusion")
    assert result.exit_code == 1, result.output  # a flag the command gives is a no-op
    assert json.loads(result.output)["flags"]["enable_flashinfer_allreduce_fusion"]["status"] == "NO_OP"


@pytest.mark.real
def test_explain_and_graph(real_cache_dir):
    result = run(real_cache_dir, "explain", "enable_flashinfer_allreduce_fusion", "--gpu", "h100", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["reads"][0]["location"] == "sglang/srt/layers/communicator.py:105"
    assert data["verdicts"]["h100"]["status"] == "CONDITIONAL"
    result = run(real_cache_dir, "graph", "--focus", "enable_flashinfer_allreduce_fusion", "--format", "dot")
    assert result.exit_code == 0 and result.output.startswith("digraph")


@pytest.mark.real
def test_bad_input(real_cache_dir):
    result = run(real_cache_dir, "explain", "enable_flashinfer_allreduce_fusio")
    assert result.exit_code == 2 and "did you mean enable_flashinfer_allreduce_fusion" in result.output
    result = run(real_cache_dir, "report", "--gpu", "nosuchgpu")
    assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.real
def test_a_command_sglang_would_refuse_is_said(real_cache_dir):
    result = CliRunner().invoke(main, [
        "-q", "--sglang", "0.5.10", "--cache-dir", str(real_cache_dir), "report", "--gpu", "h100", "--format", "json",
        "--", "--model-path", "Qwen/Qwen3-8B", "--tp", "4", "--no-such-flag"])
    assert "FS001" in result.stderr
    assert [e.split()[0] for e in json.loads(result.stdout)["command_errors"]] == ["FS001"]
