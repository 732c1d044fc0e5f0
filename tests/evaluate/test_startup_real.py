"""The startup phase on real SGLang releases: a setting the model runner writes, precision on a
plain dense deployment, and the motivating deployment starting."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = pytest.mark.real

MODELS = "tests/data/groundtruth/models"


def _resolve(cache, release: str, *args: str) -> dict:
    return resolve_json(cache, release, *args)[1]


def test_double_sparsity_makes_the_model_runner_switch_to_triton(real_cache_dir) -> None:
    # 0.5.10 ModelRunner.model_specific_adjustment (model_runner.py:830-835), after resolution
    doc = _resolve(real_cache_dir, "0.5.10", "--gpu", "h100", "--model-config", f"{MODELS}/llama-3-8b", "--",
                   "--model-path", "m", "--enable-double-sparsity", "--ds-channel-config-path", "/c.json")
    backend, graphs = doc["settings"]["attention_backend"], doc["settings"]["disable_cuda_graph"]
    assert backend["value"] == "triton" and backend["phase"] == "startup" and backend["certain"]
    assert backend["because"][-1]["location"] == "sglang/srt/model_executor/model_runner.py:834"
    assert graphs["value"] is True and graphs["because"][-1]["location"] == "sglang/srt/model_executor/model_runner.py:835"


# One release per minor step from 0.5.5 to the newest (the releases the README names).
DENSE_RELEASES = ["0.5.5", "0.5.8", "0.5.10", "0.5.12", "0.5.14", "0.5.16", "0.5.18", "0.5.20", "0.5.22", "0.5.23"]


@pytest.mark.parametrize("release", DENSE_RELEASES)
def test_a_plain_dense_deployment_gets_no_rejection_in_any_phase(real_cache_dir, release) -> None:
    doc = _resolve(real_cache_dir, release, "--gpu", "h200", "--model-config", f"{MODELS}/llama-3-8b", "--",
                   "--model-path", "m", "--tp", "1")
    assert doc["rejections"] == []
    assert doc["startup"]["analysed"] and doc["startup"]["completed"] and not doc["startup"]["stopped"]


def test_the_motivating_deployment_with_extra_buffer_starts(real_cache_dir) -> None:
    doc = _resolve(real_cache_dir, "0.5.10", "--gpu", "rtx-pro-6000", "--gpu-count", "4",
                   "--model-config", f"{MODELS}/qwen3.5-122b-a10b", "--",
                   "--model-path", "m", "--tp", "4", "--speculative-algorithm", "NEXTN",
                   "--attention-backend", "triton", "--enable-fused-moe-sum-all-reduce",
                   "--enable-flashinfer-allreduce-fusion", "--mamba-scheduler-strategy", "extra_buffer")
    assert not [r for r in doc["rejections"] if r["certain"]]
    assert doc["startup"]["completed"]
    causes = {c["location"] for c in doc["settings"]["disable_piecewise_cuda_graph"]["because"]}
    assert len(causes) == 2


def test_a_hybrid_gdn_model_with_flashinfer_on_blackwell_crashes_at_startup(real_cache_dir) -> None:
    # tests/data/startup/incidents/qwen3-next-gdn-flashinfer-sm120.toml (PR 18758): 0.5.8's
    # attn_backend_wrapper admits only triton or trtllm_mha for hybrid GDN models on Blackwell
    args = ("--gpu", "rtx-5090", "--model-config", f"{MODELS}/qwen3-next-80b-a3b", "--",
            "--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--attention-backend")
    doc = _resolve(real_cache_dir, "0.5.8", *args, "flashinfer")
    crash = [r for r in doc["rejections"] if r["certain"]]
    assert [(r["phase"], r["location"]) for r in crash] == [
        ("startup", "sglang/srt/layers/attention/attention_registry.py:202")]
    # with triton it starts (the serving phase may still name kinds of batches the backend refuses)
    assert not [r for r in _resolve(real_cache_dir, "0.5.8", *args, "triton")["rejections"] if r["phase"] != "serving"]
