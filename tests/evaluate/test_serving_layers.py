"""The serving phase calls the attention backend with each kind of layer the built model holds
(rules/startup.toml [[serving]] layer): a hybrid backend that dispatches by the layer reaches
the linear-attention path with a linear layer and the full-attention path with a full one, as
SGLang's layers call it. torch's `nn.ModuleList` keeps the layers it was given (rules/world.toml
"holds"), and an `assert` passed while serving is the premise of what follows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.startup.interpreter import StartupInterpreter
from flagscan.evaluate.startup.run import startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree
from tests.evaluate.test_serving_modes import TREE as MODES_TREE

TREE = {
    "sglang/srt/server_args.py": MODES_TREE["sglang/srt/server_args.py"],
    "sglang/srt/model_executor/forward_batch_info.py": MODES_TREE["sglang/srt/model_executor/forward_batch_info.py"],
    "sglang/srt/layers/radix_attention.py": '''
class RadixAttention:
    def __init__(self, layer_id):
        self.layer_id = layer_id
''',
    "sglang/srt/layers/radix_linear_attention.py": '''
class RadixLinearAttention:
    def __init__(self, layer_id):
        self.layer_id = layer_id
''',
    "sglang/srt/managers/tp_worker.py": '''
import torch

from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.layers.radix_linear_attention import RadixLinearAttention


class Model:
    def __init__(self):
        self.layers = torch.nn.ModuleList(
            [RadixLinearAttention(0), RadixLinearAttention(1), RadixLinearAttention(2), RadixAttention(3)]
        )


class HybridBackend:
    def __init__(self):
        self.full_attn_layers = [3]

    def forward(self, q, layer, forward_batch, mixed_qkv=None):
        if layer.layer_id in self.full_attn_layers:
            if forward_batch.forward_mode.is_mixed():
                raise NotImplementedError("full attention of a mixed batch")
            return q
        assert isinstance(mixed_qkv, torch.Tensor)
        if forward_batch.forward_mode.is_target_verify():
            raise NotImplementedError("linear attention verify")
        return q


class ModelRunner:
    def __init__(self):
        self.model = Model()
        self.attn_backend = HybridBackend()


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner()
''',
}
LINEAR_VERIFY = "sglang/srt/managers/tp_worker.py:26"
FULL_MIXED = "sglang/srt/managers/tp_worker.py:22"
LAYER = {"param": "layer", "within": ["model_runner.model"], "classes": ["RadixAttention", "RadixLinearAttention"],
         "index": "layer_id"}


def _run(tmp_path: Path, layer: dict[str, Any] | None = LAYER, **settings: Any) -> tuple[dict[str, Any], Any]:
    real = load("startup")
    rule: dict[str, Any] = {"name": "attention backend", "entry": "TP worker", "objects": ["model_runner.attn_backend"],
                            "methods": ["forward"], "batch": ["forward_batch"]}
    if layer is not None:
        rule["layer"] = layer
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                        "args": {"server_args": "record"}}],
             "needs": real["needs"], "serving_batch": real["serving_batch"], "serving_budget": real["serving_budget"],
             "serving": [rule]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("b200"), {}), root, rules)
    result = run_startup_entries(StartupInterpreter(ModuleStore(root, tmp_path / "cache"), world), rules, settings)
    return {r.location: r for r in result.rejections if r.phase == "serving"}, result


def test_the_linear_layers_path_is_certain_for_the_mode_that_reaches_it(tmp_path) -> None:
    found, result = _run(tmp_path, speculative_algorithm="EAGLE")
    assert set(found) == {LINEAR_VERIFY}
    raised = found[LINEAR_VERIFY]
    assert raised.certain and raised.condition == "a TARGET_VERIFY batch through a RadixLinearAttention layer"
    # one call per mode and kind of layer (three linear layers are one kind): 4 modes x 2 kinds
    assert result.serving["methods"] == 4 * 2


def test_the_full_layers_path_is_taken_with_a_full_layer(tmp_path) -> None:
    found, _result = _run(tmp_path, enable_mixed_chunk=True)
    assert set(found) == {FULL_MIXED}
    assert found[FULL_MIXED].certain and found[FULL_MIXED].condition == "a MIXED batch through a RadixAttention layer"


def test_with_a_layer_not_known_which_path_a_layer_takes_is_a_fact_of_the_run(tmp_path) -> None:
    found, result = _run(tmp_path, None, speculative_algorithm="EAGLE")
    assert found == {}
    assert result.run_dependent >= 1


def test_the_module_list_keeps_the_layers_it_was_given(tmp_path) -> None:
    assert load("world")["torch"]["torch.nn.ModuleList"] == "holds"
    found, _result = _run(tmp_path, {**LAYER, "classes": ["NoSuchLayer"]}, speculative_algorithm="EAGLE")
    assert found == {}   # no layer of those classes: the layer is not known, as without the rule
