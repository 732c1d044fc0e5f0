"""resolve: a knock-on (FS101) is a change caused by a flag the user gave, the GPU or the model;
a default filled in regardless of input is FS103, decided from the data flow of the step's condition."""

from __future__ import annotations

import pytest

from tests.evaluate.tree import resolve_json, write_tree

MODEL = "tests/data/groundtruth/models/llama-3-8b"


def _codes(out: dict, flag: str) -> list[str]:
    return sorted(d["code"] for d in out["diagnostics"] if d["flag"] == flag and d["code"] in ("FS101", "FS103"))


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    tree = write_tree(tmp_path_factory.mktemp("knock-tree"))
    return resolve_json(tree, tmp_path_factory.mktemp("knock-cache"),
                        ["--model-path", "m", "--speculative-algorithm", "EAGLE"])


def test_a_default_filled_in_regardless_of_input_is_not_a_knock_on(out) -> None:
    assert _codes(out, "buffer_size") == ["FS103"]
    assert next(d for d in out["diagnostics"] if d["flag"] == "buffer_size")["data"]["driven_by"] == []


def test_a_change_reacting_to_a_given_flag_or_the_gpu_is_a_knock_on(out) -> None:
    assert _codes(out, "cuda_graph_max_bs") == ["FS101"]
    by_flag = {d["flag"]: d for d in out["diagnostics"] if d["code"] == "FS101"}
    assert "speculative_algorithm" in by_flag["cuda_graph_max_bs"]["data"]["driven_by"]
    assert by_flag["disable_overlap"]["data"]["driven_by"] == ["call:is_sm90_supported"]


@pytest.mark.real
def test_0_5_10_expert_buffer_and_device_are_filled_in_not_knock_ons(real_cache_dir) -> None:
    out = resolve_json("0.5.10", real_cache_dir, ["--model-path", "m"])
    assert _codes(out, "expert_distribution_recorder_buffer_size") == ["FS103"]
    assert _codes(out, "device") == ["FS103"]
    spec = resolve_json("0.5.10", real_cache_dir, ["--model-path", "m", "--speculative-algorithm", "EAGLE"])
    assert "FS101" in {d["code"] for d in spec["diagnostics"]}


@pytest.mark.real
def test_0_5_23_device_is_filled_in_not_a_knock_on(real_cache_dir) -> None:
    from tests.conftest import ROOT

    out = resolve_json("0.5.23", real_cache_dir, ["--model-path", "m"],
                       extra=("--model-config", str(ROOT / MODEL)))
    assert out["settings"]["device"]["value"] == "cuda"
    assert _codes(out, "device") == ["FS103"]
