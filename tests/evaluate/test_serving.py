"""The serving phase on the lint fixture tree: the fa3 backend the model runner builds refuses
target-verify decode batches (fixtures/trees/lint/.../flashattention_backend.py)."""

from __future__ import annotations

import pytest

from flagscan.ruledata import load
from tests.conftest import ROOT
from tests.evaluate.helpers import resolve_json

TREE = "fixtures/trees/lint"
LLAMA = "tests/data/groundtruth/models/llama-3-8b"
BACKEND = "sglang/srt/layers/attention/flashattention_backend.py"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("serving-cache")


def _line_of(text: str) -> int:
    lines = (ROOT / TREE / BACKEND).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _serving(cache, *argv: str, gpu: str = "h200") -> tuple[int, dict, list[dict]]:
    code, doc = resolve_json(cache, TREE, "--gpu", gpu, "--model-config", LLAMA, "--", "--model-path", "m", *argv)
    return code, doc, [r for r in doc["rejections"] if r["phase"] == "serving"]


def test_a_backend_that_refuses_one_forward_mode_is_a_possible_serving_failure_naming_it(cache) -> None:
    code, doc, serving = _serving(cache, "--attention-backend", "fa3", "--speculative-algorithm", "EAGLE")
    (raised,) = serving
    assert raised["location"] == f"{BACKEND}:{_line_of('raise NotImplementedError')}"
    assert raised["exception"] == "NotImplementedError"
    assert not raised["certain"] and raised["handler"] == "forward_decode"
    assert "forward_batch.forward_mode.is_target_verify()" in raised["condition"]
    # a possible serving failure is not a crash: the command still starts
    assert code == 0 and not [r for r in doc["rejections"] if r["phase"] == "startup"]
    assert doc["startup"]["serving"]["methods"] == 2   # the backend's init_forward_metadata and forward


def test_without_the_setting_that_produces_such_batches_there_is_none(cache) -> None:
    _code, _doc, serving = _serving(cache, "--attention-backend", "fa3")
    assert serving == []


def test_a_raise_on_the_run_s_tensors_is_counted_not_reported(cache) -> None:
    # forward_extend: `if q.shape[-1] > 256: raise` tests a tensor, not the batch kind or the configuration
    _code, doc, serving = _serving(cache, "--attention-backend", "fa3", "--speculative-algorithm", "EAGLE")
    assert all(r["handler"] != "forward_extend" for r in serving)
    _code, without, _ = _serving(cache, "--attention-backend", "triton", "--speculative-algorithm", "EAGLE")
    assert doc["startup"]["run_dependent_raises"] > without["startup"]["run_dependent_raises"]


def test_a_test_of_the_batch_s_contents_rather_than_its_kind_is_counted_not_reported(cache) -> None:
    # init_forward_metadata: `if forward_batch.encoder_lens is not None: assert ...numel() == 1`
    _code, doc, serving = _serving(cache, "--attention-backend", "fa3")
    assert serving == [] and doc["startup"]["run_dependent_raises"] >= 2


def test_another_backend_is_not_called_with_the_batch(cache) -> None:
    _code, _doc, serving = _serving(cache, "--attention-backend", "triton", "--speculative-algorithm", "EAGLE")
    assert serving == []


def test_serving_entry_points_are_rule_data_with_a_schema() -> None:
    data = load("startup")
    entries = {e["name"] for e in data["entry"]}
    assert data["serving"] and data["serving_budget"]["steps"] > 0
    for rule in data["serving"]:
        assert {"name", "entry", "objects", "methods", "batch"} <= set(rule)
        assert rule["entry"] in entries
        assert rule["objects"] and all(all(p.isidentifier() for p in o.split(".")) for o in rule["objects"])
        assert set(rule) <= {"name", "entry", "objects", "methods", "batch", "mode_test", "layer", "each", "context"}
        assert set(rule.get("each", {})) <= {"index"}
        assert all(set(c) == {"call", "args"} and c["call"].count(".") >= 2 for c in rule.get("context", []))
        assert rule["methods"] and all(m.isidentifier() for m in rule["methods"])
        assert rule["batch"] and all(b.isidentifier() for b in rule["batch"])
    kinds = data["serving_batch"]["kinds"]
    assert kinds and all(k.isidentifier() for k in kinds) and len(set(kinds)) == len(kinds)
    modes = data["serving_batch"]["modes"]
    assert modes["attribute"] in kinds and modes["enum"].count(".") >= 2
    for member, when in modes["when"].items():
        assert member.isidentifier() and set(when) <= {"always", "never", "truthy", "equals", "may"}, member
        assert sum(k in when for k in ("always", "never", "truthy", "equals")) == 1, member
        assert "equals" not in when or (len(when["equals"]) == 2 and when["equals"][0].isidentifier()), member
    for rule in data["serving"]:
        assert all(m in rule["methods"] and t.isidentifier() for m, t in rule.get("mode_test", {}).items())
        if "layer" in rule:
            assert set(rule["layer"]) == {"param", "within", "classes", "index"} and rule["layer"]["classes"]
