"""The serving phase on a real release (0.5.10): the motivating deployment's attention backend is
called with each forward mode the deployment produces and refuses none, and a plain dense
deployment gets no serving rejection."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = pytest.mark.real

MODELS = "tests/data/groundtruth/models"
MOTIVATING = ("--model-path", "m", "--tp", "4", "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3",
              "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4", "--attention-backend", "triton",
              "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion",
              "--mem-fraction-static", "0.85", "--mamba-scheduler-strategy", "extra_buffer")


def test_the_hybrid_attention_backend_is_called_with_the_forward_modes_the_deployment_produces(real_cache_dir) -> None:
    # 0.5.10 HybridLinearAttnBackend.init_forward_metadata handles decode/idle and extend modes
    # and raises ValueError for any other (hybrid_linear_attn_backend.py:218): only a PREBUILT
    # batch is neither, and the scheduler never runs one through the model, so nothing is
    # reported; the methods are called once per mode (prefill, decode, idle, target-verify and
    # the two draft modes: NEXTN)
    _code, doc = resolve_json(real_cache_dir, "0.5.10", "--gpu", "rtx-pro-6000", "--gpu-count", "4",
                              "--model-config", f"{MODELS}/qwen3.5-122b-a10b", "--", *MOTIVATING)
    assert [r for r in doc["rejections"] if r["phase"] == "serving"] == []
    assert not [r for r in doc["rejections"] if r["certain"]]   # it still starts, in every phase
    assert doc["startup"]["serving"]["methods"] >= 3 * 6 and not doc["startup"]["serving"]["exhausted"]


def test_a_plain_dense_deployment_gets_no_serving_rejection(real_cache_dir) -> None:
    # fa3's `assert forward_batch.encoder_lens.numel() == 1` tests the batch's contents, not its kind
    _code, doc = resolve_json(real_cache_dir, "0.5.10", "--gpu", "h200", "--model-config", f"{MODELS}/llama-3-8b",
                              "--", "--model-path", "m", "--tp", "1")
    assert [r for r in doc["rejections"] if r["phase"] == "serving"] == []
    assert doc["startup"]["serving"]["methods"] >= 3
