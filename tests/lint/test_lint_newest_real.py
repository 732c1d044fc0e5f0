"""The motivating unit on the newest release (0.5.23) on an H200 with no model config: the README's
figures, and what the unit's HF_HUB_OFFLINE=1 decides (rules/world.toml [offline]): 0.5.23's
lookup of a GGUF file on the Hub returns None for certain, so the model path is the one given."""

from __future__ import annotations

import pytest

from flagscan.lint import lint_file
from tests.evaluate.helpers import resolve_json
from tests.lint.helpers import UNITS, options

pytestmark = pytest.mark.real


def _summary(result, code: str) -> str:
    return next(d.message for d in result.diagnostics if d.code == code and "depend on the model" in d.message)


def _stopped(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "FS402"]


def test_offline_unit_on_the_newest_release(real_cache_dir) -> None:
    result = lint_file(str(UNITS / "sglang-qwen.service"), options("0.5.23", real_cache_dir, select=()))
    assert len(result.diagnostics) == 11
    assert _summary(result, "FS302").startswith("145 start-up check(s) depend on the model")
    assert _summary(result, "FS401").startswith("38 setting(s) SGLang may change depend on the model")
    # two recursions over sub-configs not known for want of the model (boundary_reduction.py,
    # hf_transformers_patches.py): said once, asking for the model, not as a warning per place
    stopped = [d for d in result.diagnostics if d.code == "FS402"]
    assert [(d.severity.value, d.message.split(" for want")[0]) for d in stopped] == [
        ("warning", "analysis did not follow 2 place(s) in SGLang's code")]
    assert "give --model-config to follow them" in stopped[0].message
    # the model path is no URL: the remote connectors are not followed
    assert not [m for m in _stopped(result) if "connector" in m]



def test_resolve_says_what_the_values_a_stop_was_on_need(real_cache_dir) -> None:
    _code, doc = resolve_json(real_cache_dir, "0.5.23", "--gpu", "h200", str(UNITS / "sglang-qwen.service"))
    needs = {s["location"]: s.get("needs") for s in doc["stopped"]}
    assert needs["sglang/srt/utils/hf_transformers_patches.py:110"] == ["model"]
    assert needs["sglang/srt/arg_groups/boundary_reduction.py:28"] == ["model"]

def test_online_the_same_unit_may_serve_a_gguf_file(real_cache_dir, tmp_path) -> None:
    text = (UNITS / "sglang-qwen.service").read_text()
    assert " HF_HUB_OFFLINE=1" in text
    online = tmp_path / "sglang-qwen-online.service"
    online.write_text(text.replace(" HF_HUB_OFFLINE=1", ""))
    result = lint_file(str(online), options("0.5.23", real_cache_dir, select=()))
    # the listing may name one .gguf file: the model path may be its download, which SGLang's
    # is_remote_url does not decide, so more start-up checks depend on the model. The Redis
    # connector's `while True:` listing, left on a cursor from the server, is followed to its
    # end (what its passes change is unknown after the first that may both leave and go on),
    # no longer cut at 200 passes
    assert int(_summary(result, "FS302").split()[0]) > 145
    assert not [m for m in _stopped(result) if "sglang/srt/connector/redis.py" in m]
