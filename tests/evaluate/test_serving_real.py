"""The serving phase on a real release (0.5.10): the motivating deployment's attention backend
names the kind of batch it refuses, and a plain dense deployment gets no serving rejection."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = pytest.mark.real

MODELS = "tests/data/groundtruth/models"
MOTIVATING = ("--model-path", "m", "--tp", "4", "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3",
              "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4", "--attention-backend", "triton",
              "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion",
              "--mem-fraction-static", "0.85", "--mamba-scheduler-strategy", "extra_buffer")


def test_the_hybrid_attention_backend_names_the_forward_modes_it_refuses(real_cache_dir) -> None:
    # 0.5.10 HybridLinearAttnBackend.init_forward_metadata: decode/idle and extend modes are
    # handled, any other forward mode raises ValueError (hybrid_linear_attn_backend.py:218)
    _code, doc = resolve_json(real_cache_dir, "0.5.10", "--gpu", "rtx-pro-6000", "--gpu-count", "4",
                              "--model-config", f"{MODELS}/qwen3.5-122b-a10b", "--", *MOTIVATING)
    serving = [r for r in doc["rejections"] if r["phase"] == "serving"]
    hybrid = [r for r in serving if r["location"] == "sglang/srt/layers/attention/hybrid_linear_attn_backend.py:218"]
    assert hybrid and hybrid[0]["exception"] == "ValueError" and not hybrid[0]["certain"]
    assert "forward_batch.forward_mode.is_decode_or_idle()" in hybrid[0]["condition"]
    assert not [r for r in doc["rejections"] if r["certain"]]   # it still starts, in every phase
    assert doc["startup"]["serving"]["methods"] >= 3 and not doc["startup"]["serving"]["exhausted"]


def test_a_plain_dense_deployment_gets_no_serving_rejection(real_cache_dir) -> None:
    # fa3's `assert forward_batch.encoder_lens.numel() == 1` tests the batch's contents, not its kind
    _code, doc = resolve_json(real_cache_dir, "0.5.10", "--gpu", "h200", "--model-config", f"{MODELS}/llama-3-8b",
                              "--", "--model-path", "m", "--tp", "1")
    assert [r for r in doc["rejections"] if r["phase"] == "serving"] == []
    assert doc["startup"]["serving"]["methods"] >= 3
