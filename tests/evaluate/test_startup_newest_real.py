"""The startup run on the hook-era releases (0.5.20+) builds what the serving phase calls: the
attention backend and the model of a dense deployment, and the serving phase calls them."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = pytest.mark.real

LLAMA = "tests/data/groundtruth/models/llama-3-8b"


@pytest.mark.parametrize("release", ["0.5.20", "0.5.23"])
def test_the_serving_phase_calls_the_attention_backend_and_the_model(real_cache_dir, release) -> None:
    # The model: DefaultModelLoader.load_model returns `model.eval()` (an nn.Module method,
    # rules/startup.toml [[outside_base]]); the loader: load_format is "auto" or "mistral"
    # (is_mistral_native_format needs the checkpoint's files), so LoadConfig's
    # LoadFormat(load_format.lower()) is one of two members. 0.5.23's attention backend:
    # the default backend reads platforms' lazily initialised `current_platform`.
    _code, doc = resolve_json(real_cache_dir, release, "--gpu", "h200", "--model-config", LLAMA, "--",
                              "--model-path", "meta-llama/Meta-Llama-3-8B", "--tp", "1")
    startup = doc["startup"]
    assert startup["completed"] and not startup["stopped"]
    serving = startup["serving"]
    assert "attention backend" not in serving["not_built"] and "model" not in serving["not_built"]
    # 0.5.23 publishes the launcher's placement first (SpawnRanks): get_device().gpu_id is 0, not
    # None, and the startup run goes past get_available_gpu_memory's `assert gpu_id < num_gpus`
    # init_forward_metadata and forward of the backend, forward of the model, the graph runner's
    assert serving["methods"] >= 4 and serving["steps"] > 0
    assert doc["rejections"] == []
