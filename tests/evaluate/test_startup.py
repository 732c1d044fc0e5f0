"""The startup phase on the lint fixture tree (fixtures/trees/lint: a TP worker, a model runner,
a decorator registry of attention backends, a model registry read from EntryClass)."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import resolve_json

TREE = "fixtures/trees/lint"
LLAMA = "tests/data/groundtruth/models/llama-3-8b"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("startup-cache")


def _resolve(cache, *args: str, tree: str = TREE) -> tuple[int, dict]:
    return resolve_json(cache, tree, *args)


def _startup(doc: dict) -> list[dict]:
    return [r for r in doc["rejections"] if r["phase"] == "startup"]


def test_a_backend_constructor_that_refuses_the_gpu_is_a_certain_startup_crash(cache) -> None:
    code, doc = _resolve(cache, "--gpu", "rtx-pro-6000", "--model-config", LLAMA, "--",
                         "--model-path", "m", "--attention-backend", "flashinfer")
    assert code == 1
    crash = [r for r in _startup(doc) if r["certain"]]
    assert [r["location"] for r in crash] == ["sglang/srt/layers/attention/attention_registry.py:24"]
    assert crash[0]["exception"] == "RuntimeError" and crash[0]["handler"] == "create_flashinfer_backend"
    assert all(r["phase"] == "resolution" for r in doc["rejections"] if r not in _startup(doc))


def test_the_same_command_starts_on_another_gpu(cache) -> None:
    code, doc = _resolve(cache, "--gpu", "h200", "--model-config", LLAMA, "--",
                         "--model-path", "m", "--attention-backend", "flashinfer")
    assert code == 0
    assert _startup(doc) == []
    assert doc["startup"]["analysed"] and doc["startup"]["completed"]


def test_a_raise_that_depends_on_the_run_is_counted_not_reported(cache) -> None:
    # model_runner.py: `if nccl_port <= 0: raise` (the port is chosen at launch)
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", LLAMA, "--", "--model-path", "m")
    assert not any("NCCL" in (r["message"] or "") for r in doc["rejections"])
    assert doc["startup"]["run_dependent_raises"] >= 1


def test_a_model_class_that_rejects_a_setting(cache) -> None:
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", "fixtures/models/tiny-moe", "--",
                          "--model-path", "m", "--speculative-algorithm", "NEXTN")
    assert [r["location"] for r in _startup(doc) if r["certain"]] == ["sglang/srt/models/tiny_moe.py:9"]
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", "fixtures/models/tiny-moe", "--",
                          "--model-path", "m")
    assert _startup(doc) == []


def test_an_architecture_the_release_does_not_register(cache) -> None:
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", "fixtures/models/unregistered", "--",
                          "--model-path", "m")
    (crash,) = _startup(doc)
    assert crash["certain"] and crash["location"] == "sglang/srt/models/registry.py:18"
    assert "NoSuchForCausalLM" in crash["message"]


def test_without_a_model_config_the_registry_check_is_possible_and_needs_the_model(cache) -> None:
    # The registry loops over config.architectures: without a config the loop's elements
    # are unknown, so the raise after it is possible, never certain.
    _code, doc = _resolve(cache, "--gpu", "h200", "--", "--model-path", "m")
    (possible,) = _startup(doc)
    assert not possible["certain"] and possible["needs"] == ["model"]
    assert "{" not in possible["message"]


def test_a_setting_written_at_startup_is_adjusted_with_phase_startup(cache) -> None:
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", LLAMA, "--",
                          "--model-path", "m", "--speculative-algorithm", "EAGLE")
    setting = doc["settings"]["chunked_prefill_size"]
    assert setting["value"] == 4096 and setting["phase"] == "startup" and setting["certain"]
    assert setting["because"][-1]["location"] == "sglang/srt/model_executor/model_runner.py:46"


def test_no_startup_skips_the_phase_and_says_so(cache) -> None:
    _code, doc = _resolve(cache, "--gpu", "rtx-pro-6000", "--model-config", LLAMA, "--no-startup", "--",
                          "--model-path", "m", "--attention-backend", "flashinfer")
    assert doc["startup"] == {"analysed": False} and _startup(doc) == []


def test_a_tree_without_the_startup_entry_says_where_it_stopped(cache) -> None:
    _code, doc = _resolve(cache, "--gpu", "h200", "--", "--model-path", "m", tree="fixtures/trees/lint-next")
    assert doc["startup"]["stopped"] and "TpModelWorker" in doc["startup"]["stopped"][0]


def test_startup_results_are_cached(cache, tmp_path) -> None:
    args = ("--gpu", "h200", "--model-config", LLAMA, "--", "--model-path", "m", "--tp-size", "1")
    first = _resolve(tmp_path, *args)
    assert list((tmp_path / "facts" / "startup").glob("*.json"))
    assert _resolve(tmp_path, *args) == first


def test_a_step_the_scheduler_runs_after_building_the_worker_is_followed(cache) -> None:
    # 0.5.14+: the scheduler calls TpModelWorker.init_cuda_graphs() once the worker is built
    # (rules/startup.toml `then`); the fixture's capture refuses triton below sm75
    code, doc = _resolve(cache, "--gpu", "sm70", "--model-config", LLAMA, "--",
                         "--model-path", "m", "--attention-backend", "triton")
    assert code == 1
    crash = [r for r in _startup(doc) if r["certain"]]
    assert [(r["location"], r["handler"], r["exception"]) for r in crash] == [
        ("sglang/srt/model_executor/model_runner.py:74", "init_cuda_graphs", "RuntimeError")]
    _code, doc = _resolve(cache, "--gpu", "h200", "--model-config", LLAMA, "--",
                          "--model-path", "m", "--attention-backend", "triton")
    assert _startup(doc) == []


def test_an_object_sentinel_is_told_apart_by_identity(cache) -> None:
    # model_runner.py: `_UNSET = object()` ... `if backend is _UNSET: raise`: a known setting is
    # not the sentinel, so that raise is dead and the capture check after it stays certain
    _code, doc = _resolve(cache, "--gpu", "sm70", "--model-config", LLAMA, "--",
                          "--model-path", "m", "--attention-backend", "triton")
    assert not any(r["location"].endswith("model_runner.py:71") for r in doc["rejections"])
    assert [r["certain"] for r in _startup(doc)] == [True]
    # not even counted as depending on the run: the only such raise is the NCCL port's
    assert doc["startup"]["run_dependent_raises"] == 1


@pytest.mark.parametrize("steps", [20, 50, 80])
def test_a_startup_entry_that_spends_its_budget_says_so_and_rejects_nothing_for_certain(steps, tmp_path,
                                                                                       monkeypatch) -> None:
    # rules/startup.toml [startup_budget]: where the budget runs out, nothing after it is followed (a call
    # cut short leaves what it would have written unwritten, so a later step would read a half-built
    # object: the fixture's published() would raise for certain on settings never published)
    import copy

    import flagscan.evaluate.startup.predict as predict

    real = predict.load

    def load(name: str):
        rules = real(name)
        return {**copy.deepcopy(rules), "startup_budget": {"steps": steps}} if name == "startup" else rules

    monkeypatch.setattr(predict, "load", load)
    code, doc = _resolve(tmp_path, "--gpu", "sm70", "--model-config", LLAMA, "--",
                         "--model-path", "m", "--attention-backend", "triton")
    assert code == 0 and doc["rejections"] == []
    # said once (lint: one FS403), naming the innermost call it ran out in, not once per call on the stack
    (spent,) = [why for why in doc["startup"]["stopped"] if "budget exhausted" in why]
    assert spent.startswith(f"the TP worker: analysis budget exhausted ({steps} steps) in sglang.srt.")
