"""Real releases: the environment variables SGLang's resolution sets, with their causes, and the
package versions the release pins (its wheel's Requires-Dist) deciding what depends on them."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

pytestmark = pytest.mark.real

MODELS = "tests/data/groundtruth/models"


@pytest.mark.parametrize("release, location, handler", [
    # 0.5.23: serving_hook.py handle_environment_variables calls envs.X.set(...) (environ.py:93 writes it)
    ("0.5.23", "sglang/srt/arg_groups/serving_hook.py:444", "handle_environment_variables"),
    # 0.5.10: ServerArgs._handle_environment_variables writes os.environ[...] itself
    ("0.5.10", "sglang/srt/server_args.py:3397", "_handle_environment_variables"),
])
def test_an_env_write_of_the_resolution_with_its_cause(real_cache_dir, release, location, handler) -> None:
    code, doc = resolve_json(real_cache_dir, release, "--gpu", "h200", "--no-startup", "--model-config",
                             f"{MODELS}/llama-3-8b", "--", "--model-path", "m", "--enable-deterministic-inference")
    assert code in (0, 1)
    written = doc["env"]["SGLANG_ENABLE_DETERMINISTIC_INFERENCE"]
    assert written["value"] == "1" and written["certain"] is True
    assert {"location": location, "handler": handler} in [
        {"location": c["location"], "handler": c["handler"]} for c in written["because"]]
    # what is left unset on every path is not reported as set
    assert all(v["value"] is None or isinstance(v["value"], str) for v in doc["env"].values())


def test_0_5_23_pins_decide_package_questions(real_cache_dir) -> None:
    from flagscan.evaluate.packages import for_revision
    from flagscan.source import get_source

    tree = get_source("0.5.23", cache_dir=real_cache_dir)
    packages, why = for_revision(tree, real_cache_dir, offline=False)
    assert why is None
    assert packages.dist("flashinfer_python").evidence == "package:flashinfer-python==0.7.2 (pinned by sglang 0.5.23)"
    assert packages.module("sgl_kernel")[1].version == "0.4.10"
    code, doc = resolve_json(real_cache_dir, "0.5.23", "--gpu", "h200", "--no-startup", "--model-config",
                             f"{MODELS}/llama-3-8b", "--", "--model-path", "m")
    assert code in (0, 1)
    assert any(e.endswith("(pinned by sglang 0.5.23)") for e in doc["packages"].values()), doc["packages"]
