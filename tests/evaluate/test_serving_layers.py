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


# A model that builds its attention layer with a projection of None and sets it in its own
# forward before the backend runs (DeepSeek's `attn_mha.kv_b_proj`, deepseek_v2.py): the layer
# the backend gets is the one the forward left, so the projection is a value of the run.
LATER = {
    **TREE,
    "sglang/srt/managers/tp_worker.py": '''
import torch

from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.mem_cache.pool import Pool


class Attention:
    def __init__(self):
        self.proj = torch.nn.Linear(4, 4)
        self.attn = RadixAttention(0)
        self.attn.proj = None
        self.attn.kind = "mha"

    def forward_prepare(self):
        if self.attn.proj is None:
            self.attn.proj = self.proj


class Model:
    def __init__(self):
        self.layers = torch.nn.ModuleList([Attention()])


class Backend:
    def forward(self, q, layer, forward_batch):
        if layer.kind != "mha":
            raise NotImplementedError("only MHA layers")
        out = layer.proj(q)
        if forward_batch.forward_mode.is_mixed():
            raise NotImplementedError(f"a mixed batch of a {layer.kind} layer")
        return out


class ModelRunner:
    def __init__(self):
        self.model = Model()
        self.attn_backend = Backend()
        self.pool = Pool()


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner()
''',
    "sglang/srt/mem_cache/pool.py": '''
class Pool:
    # code the backend calls, not the model (0.5.10 HybridLinearKVPool._transfer_id_context
    # renumbers a layer and restores it): the call itself runs it, it does not run before
    def patch(self, layer):
        layer.kind = "other"
''',
}


def test_an_attribute_the_model_s_code_sets_after_building_the_layer_is_a_value_of_the_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")  # calling the built layer's None projection would be a give-up
    monkeypatch.setitem(TREE, "sglang/srt/managers/tp_worker.py", LATER["sglang/srt/managers/tp_worker.py"])
    monkeypatch.setitem(TREE, "sglang/srt/mem_cache/pool.py", LATER["sglang/srt/mem_cache/pool.py"])
    found, result = _run(tmp_path, {**LAYER, "within": ["model_runner.model"]}, enable_mixed_chunk=True)
    assert not result.not_followed and not result.stopped
    # `kind` is written only while building: still known, so the mixed batch's raise is certain
    (raised,) = found.values()
    assert raised.certain and raised.message == "a mixed batch of a mha layer"


def test_the_writes_after_building_are_those_of_functions_other_than_constructors() -> None:
    from flagscan.evaluate.startup.later import _module_writes_of
    from flagscan.extract.lower import lower_source

    module = lower_source('''
class Layer:
    def __init__(self):
        self.built = 1

    def load(self, w):
        self.scale = w
        if w:
            for i in range(2):
                self.count += i


class Owner:
    def __init__(self):
        self.layer = Layer()
        self.layer.proj = None          # the owner's construction

    def forward(self, layer):
        try:
            self.layer.proj = 1
        except Exception:
            setattr(layer, "bias", 2)
        a, layer.first = 1, 2
        self.own = 3                    # Owner's own attribute, not another object's


def helper(layer):
    layer.weight = 0
''', "m", "m.py", False)
    writes = _module_writes_of(module)
    assert writes.others == {"proj", "bias", "first", "weight"}
    assert writes.own == {"Layer": {"scale", "count"}, "Owner": {"own"}}


# The draft worker is built after the target's TP worker and writes to the settings both share
# (0.5.10 ModelRunner.model_specific_adjustment on the draft's runner turns
# disable_chunked_prefix_cache on): batches arrive only once both are built.
SHARED = {
    **TREE,
    "sglang/srt/managers/tp_worker.py": '''
class Backend:
    def __init__(self, server_args):
        self.server_args = server_args

    def forward(self, q, layer, forward_batch):
        if forward_batch.attn_attend_prefix_cache:
            assert not self.server_args.enable_mixed_chunk
        return q


class ModelRunner:
    def __init__(self, server_args):
        self.attn_backend = Backend(server_args)


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner(server_args)


class DraftWorker:
    def __init__(self, server_args):
        server_args.enable_mixed_chunk = True
''',
}


def test_serving_sees_what_an_entry_built_after_the_served_one_wrote(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(TREE, "sglang/srt/managers/tp_worker.py", SHARED["sglang/srt/managers/tp_worker.py"])
    real = load("startup")
    entries = [{"name": name, "phase": "startup", "class": f"sglang.srt.managers.tp_worker.{cls}",
                "args": {"server_args": "record"}} for name, cls in (("TP worker", "TpModelWorker"),
                                                                     ("draft worker", "DraftWorker"))]
    rules = {"entry": entries, "needs": real["needs"], "serving_batch": real["serving_batch"],
             "serving_budget": real["serving_budget"],
             "serving": [{"name": "attention backend", "entry": "TP worker", "objects": ["model_runner.attn_backend"],
                          "methods": ["forward"], "batch": ["forward_batch"]}]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    result = run_startup_entries(StartupInterpreter(ModuleStore(root, tmp_path / "cache"), world), rules, {})
    (raised,) = [r for r in result.rejections if r.phase == "serving"]
    assert raised.exception == "AssertionError" and "forward_batch.attn_attend_prefix_cache" in raised.condition
    assert "enable_mixed_chunk" in raised.message


# Scheduler.__init__ sets the MoE runner backend as a module global before it builds the TP
# worker (init_moe_gemm_config -> initialize_moe_config); the layers read it when batches arrive,
# and until then get_moe_runner_backend() answers AUTO.
PRELUDE = {
    **TREE,
    "sglang/srt/moe_utils.py": '''
MOE_RUNNER_BACKEND = None


def initialize_moe_config(server_args):
    global MOE_RUNNER_BACKEND
    MOE_RUNNER_BACKEND = server_args.speculative_algorithm


def get_moe_runner_backend():
    global MOE_RUNNER_BACKEND
    if MOE_RUNNER_BACKEND is None:
        MOE_RUNNER_BACKEND = "auto"
    return MOE_RUNNER_BACKEND
''',
    "sglang/srt/managers/scheduler.py": '''
from sglang.srt.moe_utils import initialize_moe_config


class Scheduler:
    def __init__(self, server_args):
        raise RuntimeError("the constructor is not run")

    def init_moe_gemm_config(self):
        if self.model_config == "moe":
            initialize_moe_config(self.server_args)
''',
    "sglang/srt/managers/tp_worker.py": '''
from sglang.srt.moe_utils import get_moe_runner_backend


class Backend:
    def forward(self, q, layer, forward_batch):
        if get_moe_runner_backend() == "fused":
            raise NotImplementedError("the fused runner")
        return q


class ModelRunner:
    def __init__(self):
        self.attn_backend = Backend()


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner()
''',
}


def test_a_prelude_calls_methods_of_a_class_whose_constructor_is_not_run(tmp_path, monkeypatch) -> None:
    for path, text in PRELUDE.items():
        monkeypatch.setitem(TREE, path, text)
    real = load("startup")
    prelude = {"class": "sglang.srt.managers.scheduler.Scheduler",
               "methods": ["init_moe_config", "init_moe_gemm_config"],   # the release defines the second only
               "attributes": {"server_args": "record", "model_config": "const:moe"}}
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": "sglang.srt.managers.tp_worker.TpModelWorker",
                        "args": {"server_args": "record"}, "prelude": [prelude]}],
             "needs": real["needs"], "serving_batch": real["serving_batch"], "serving_budget": real["serving_budget"],
             "serving": [{"name": "attention backend", "entry": "TP worker", "objects": ["model_runner.attn_backend"],
                          "methods": ["forward"], "batch": ["forward_batch"]}]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)

    def serving(settings):
        result = run_startup_entries(StartupInterpreter(ModuleStore(root, tmp_path / "cache"), world), rules, settings)
        return [(r.message, r.certain) for r in result.rejections if r.phase == "serving"], result.stopped

    assert serving({"speculative_algorithm": "fused"}) == ([("the fused runner", True)], [])
    assert serving({"speculative_algorithm": "triton"}) == ([], [])
