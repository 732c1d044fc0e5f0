"""The startup runs of the real startup tests under FLAGSCAN_STRICT=1: the interpreter gives up
nowhere on them (a give-up raises GaveUp, so the command does not finish), and the answer is
the one the lenient run gives (tests/evaluate/test_startup_real.py, test_startup_newest_real.py)."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("strict")]

MODELS = "tests/data/groundtruth/models"
DENSE = ("--gpu", "h200", "--model-config", f"{MODELS}/llama-3-8b", "--", "--model-path", "m", "--tp", "1")
CASES = {
    **{f"dense-{r}": (r, *DENSE) for r in ["0.5.5", "0.5.8", "0.5.10", "0.5.12", "0.5.14", "0.5.16", "0.5.18",
                                           "0.5.20", "0.5.22", "0.5.23"]},
    "double-sparsity-0.5.10": ("0.5.10", "--gpu", "h100", "--model-config", f"{MODELS}/llama-3-8b", "--",
                               "--model-path", "m", "--enable-double-sparsity", "--ds-channel-config-path", "/c.json"),
    "motivating-0.5.10": ("0.5.10", "--gpu", "rtx-pro-6000", "--gpu-count", "4",
                          "--model-config", f"{MODELS}/qwen3.5-122b-a10b", "--", "--model-path", "m", "--tp", "4",
                          "--speculative-algorithm", "NEXTN", "--attention-backend", "triton",
                          "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion",
                          "--mamba-scheduler-strategy", "extra_buffer"),
    "hybrid-gdn-triton-0.5.8": ("0.5.8", "--gpu", "rtx-5090", "--model-config", f"{MODELS}/qwen3-next-80b-a3b", "--",
                                "--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--attention-backend", "triton"),
    # incidents of tests/data/startup (the commands bench/startup_incidents.py builds): the Kimi
    # loader's dict(pairs), the YaRN rotary built with **kwargs, the EAGLE3 draft worker
    "kimi-k2.5-pp-0.5.9": ("0.5.9", "--gpu", "h200", "--gpu-count", "8", "--model-arch",
                           "KimiK25ForConditionalGeneration", "--", "--model-path", "moonshotai/Kimi-K2.5", "--tp", "8",
                           "--pp-size", "2", "--trust-remote-code"),
    "kimi-k2.6-eagle3-0.5.10": ("0.5.10", "--gpu", "sm103", "--gpu-count", "4", "--gpu-name", "NVIDIA GB300",
                                "--model-arch", "KimiK25ForConditionalGeneration", "--env", "SGLANG_ENABLE_SPEC_V2=1",
                                "--", "--model-path", "moonshotai/Kimi-K2.6", "--tensor-parallel-size", "4",
                                "--reasoning-parser", "kimi_k2", "--tool-call-parser", "kimi_k2", "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
                                "lightseekorg/kimi-k2.6-eagle3", "--speculative-num-steps", "3",
                                "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                                "--trust-remote-code"),
    # known-good DeepSeek launches of tests/data/startup/good: the debug dumper singleton read on a path
    # forked before its module's import (dsv3), the DeepSeek-V4 weight loop's setdefault bucket (dsv4)
    "dsv3-b200-tp8-0.5.14": ("0.5.14", "--gpu", "b200", "--gpu-count", "8", "--model-config", f"{MODELS}/deepseek-v3",
                             "--", "--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "8", "--trust-remote-code"),
    "dsv4-flash-b200-0.5.14": ("0.5.14", "--gpu", "b200", "--gpu-count", "4", "--model-config",
                               "tests/data/startup/models/deepseek-v4-flash", "--", "--trust-remote-code",
                               "--model-path", "deepseek-ai/DeepSeek-V4-Flash", "--tp", "4", "--moe-runner-backend",
                               "flashinfer_mxfp4", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                               "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                               "--chunked-prefill-size", "4096", "--disable-flashinfer-autotune",
                               "--swa-full-tokens-ratio", "0.1"),
    # known-good two-node DeepSeek-V3 (tests/data/startup/good): EP 1 over two nodes makes
    # eplb/expert_location.py's num_gpus_per_node a true 0, divided by on a path SGLang never takes
    "dsv3-h20-two-nodes-rank0-0.5.10": ("0.5.10", "--gpu", "h20", "--gpu-count", "8", "--model-config",
                                        f"{MODELS}/deepseek-v3", "--", "--model-path", "deepseek-ai/DeepSeek-V3",
                                        "--tp", "16", "--dist-init-addr", "10.0.0.1:5000", "--nnodes", "2",
                                        "--node-rank", "0", "--trust-remote-code"),
    # known-good launches (tests/data/startup/good) whose serving phase reads a batch's items back
    # from a dict keyed by tuples holding the batch's values (qwen3.5) or calls a core function
    # with the tuple a prepare function returned (`*inner_state`, dsv3 MTP)
    "dsv3-h200-mtp-0.5.10": ("0.5.10", "--gpu", "h200", "--gpu-count", "8", "--model-config", f"{MODELS}/deepseek-v3",
                             "--", "--model-path", "deepseek-ai/DeepSeek-V3-0324", "--speculative-algorithm", "EAGLE",
                             "--trust-remote-code", "--tp", "8"),
    "qwen3.5-35b-b300-triton-0.5.20": ("0.5.20", "--gpu", "b300", "--model-config",
                                       "tests/data/startup/models/qwen3.5-35b-a3b", "--", "--model-path",
                                       "Qwen/Qwen3.5-35B-A3B", "--attention-backend", "triton"),
    "qwen3.5-122b-b200-nextn-0.5.23": ("0.5.23", "--gpu", "b200", "--model-config", f"{MODELS}/qwen3.5-122b-a10b",
                                       "--", "--model-path", "Qwen/Qwen3.5-122B-A10B-FP8", "--speculative-algorithm",
                                       "NEXTN", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                                       "--speculative-num-draft-tokens", "4", "--attention-backend", "trtllm_mha"),
    # the serving phase's GDN backend, handed a request pool that is the hybrid one or the plain one as
    # the draft's unknown config joined the paths, stores into the mamba pool's conv cache
    "kimi-k2.5-eagle3-0.5.10": ("0.5.10", "--gpu", "h200", "--gpu-count", "8", "--model-config",
                                "tests/data/startup/models/kimi-k2.5", "--", "--model-path", "moonshotai/Kimi-K2.5",
                                "--tp", "8", "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
                                "lightseekorg/kimi-k2.5-eagle3", "--speculative-num-steps", "3",
                                "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                                "--trust-remote-code"),
    "mllama-0.5.10": ("0.5.10", "--gpu", "h100", "--model-arch", "MllamaForConditionalGeneration", "--",
                      "--model-path", "meta-llama/Llama-3.2-11B-Vision-Instruct"),
}


def _resolve(cache, release: str, *args: str) -> dict:
    return resolve_json(cache, release, *args)[1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_startup_run_gives_up_nowhere(real_cache_dir, case) -> None:
    doc = _resolve(real_cache_dir, *CASES[case])
    startup = doc["startup"]
    assert startup["analysed"] and startup["completed"] and not startup["stopped"]
    assert not [r for r in doc["rejections"] if r["certain"]]
    if case.startswith("dense-"):
        assert doc["rejections"] == []
