"""The serving phase calls each kind of block a built model holds (rules/startup.toml [[serving]]
`each`): the decoder layers of `model.model.layers`, one of each structure (a hash-routed MoE
beside a routed one), as the model's forward calls every one of them. A block's label names the
one called and how many it stands for; each is called in the context SGLang's model runner
publishes around the model's forward. torch.nn.Module's own attributes are rule data
([[outside_base]] `own`): `getattr(module, name, default)` of a name no code gave the module is
the default, so the path past it is not a fact of the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.startup.interpreter import StartupInterpreter
from flagscan.evaluate.startup.outside import outside_calls, outside_owns, outside_self, outside_stores
from flagscan.evaluate.startup.run import startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree
from tests.evaluate.test_serving_modes import TREE as MODES_TREE

WORKER = '''
from typing import NamedTuple

import torch

from sglang.srt.model_executor.forward_context import get_forward_context


class Standard(NamedTuple):
    weights: object
    ids: object


class Bypassed(NamedTuple):
    logits: object


class HashRouter(torch.nn.Module):
    def forward(self, hidden_states):
        return Standard(weights=hidden_states, ids=hidden_states)


class Router(torch.nn.Module):
    def forward(self, hidden_states):
        return Bypassed(hidden_states)


class Experts(torch.nn.Module):
    def __init__(self, name):
        super().__init__()
        REGISTER

    def forward(self, hidden_states, routed):
        if getattr(self, "use_cpu_kernel", False):
            return hidden_states
        assert isinstance(routed, Bypassed), "the fused kernel routes inside"
        return hidden_states


class MoE(torch.nn.Module):
    def __init__(self, layer_id, n_hash):
        super().__init__()
        self.is_hash = layer_id < n_hash
        self.router = HashRouter() if self.is_hash else Router()
        self.experts = Experts(f"experts{layer_id}")

    def forward(self, hidden_states):
        return self.experts(hidden_states, self.router(hidden_states))


class DecoderLayer(torch.nn.Module):
    def __init__(self, layer_id, prefix):
        super().__init__()
        self.layer_id = layer_id
        self.prefix = prefix
        self.mlp = MoE(layer_id, 2)

    def forward(self, positions, hidden_states, forward_batch):
        get_forward_context()
        return self.mlp(hidden_states)


def make_layers(n, layer_fn, prefix=""):
    return torch.nn.ModuleList([layer_fn(idx=idx, prefix=f"{prefix}.{idx}") for idx in range(n)])


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = make_layers(6, lambda idx, prefix: DecoderLayer(idx, prefix), prefix="layers")


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Inner()


class ModelRunner:
    def __init__(self):
        self.model = Model()


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner()
'''
ASSERT = "sglang/srt/managers/tp_worker.py:36"
CONTEXT = {"sglang/srt/model_executor/forward_context.py": '''
from dataclasses import dataclass

_current = None


@dataclass(frozen=True)
class ForwardContext:
    attn_backend: object


def set_forward_context(ctx):
    global _current
    prev, _current = _current, ctx
    return prev


def get_forward_context():
    assert _current is not None, "no forward context active"
    return _current
'''}


def _run(tmp_path: Path, register: str = "pass", own: bool = True, context: bool = True) -> tuple[dict[str, Any], Any]:
    real = load("startup")
    (rule,) = [r for r in real["serving"] if r["name"] == "decoder layer"]
    if not context:
        rule = {k: v for k, v in rule.items() if k != "context"}
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                        "args": {"server_args": "record"}}],
             "needs": real["needs"], "serving_batch": real["serving_batch"], "serving_budget": real["serving_budget"],
             "serving": [{**rule, "objects": ["model_runner.model.model.layers"]}]}
    tree = {"sglang/srt/server_args.py": MODES_TREE["sglang/srt/server_args.py"],
            "sglang/srt/model_executor/forward_batch_info.py": MODES_TREE["sglang/srt/model_executor/forward_batch_info.py"],
            "sglang/srt/managers/tp_worker.py": WORKER.replace("REGISTER", register), **CONTEXT}
    root = write_tree(tmp_path / "tree", tree)
    world = startup_world(World(profile_from_spec("b200"), {}), root, rules)

    class Interp(StartupInterpreter):
        returns_self, calls, stores = outside_self(real), outside_calls(real), outside_stores(real)
        owns = outside_owns(real) if own else {}

    result = run_startup_entries(Interp(ModuleStore(root, tmp_path / "cache"), world), rules, {})
    return {r.location: r for r in result.rejections if r.phase == "serving"}, result


def test_one_block_of_each_structure_is_called_for_each_mode(tmp_path) -> None:
    _found, result = _run(tmp_path)
    # six layers of one class: the two hash-routed ones and the four routed ones are two kinds
    assert result.serving["methods"] == 2 * len(result.serving["modes"])


def test_the_hash_routed_block_reaches_the_assert_for_certain_and_is_named(tmp_path) -> None:
    found, _result = _run(tmp_path)
    assert set(found) == {ASSERT}
    raised = found[ASSERT]
    assert raised.certain
    assert "through decoder layer DecoderLayer layer_id 0, one of 2 alike" in raised.condition


def test_without_the_module_s_own_attributes_the_default_is_not_known(tmp_path) -> None:
    found, result = _run(tmp_path, own=False)
    assert found == {}
    assert result.run_dependent >= 1


def test_a_register_under_a_name_not_known_may_give_the_module_any_attribute(tmp_path) -> None:
    found, result = _run(tmp_path, register="self.register_buffer(torch.buffer_name(), None)")
    assert found == {}
    assert result.run_dependent >= 1
    found, _result = _run(tmp_path / "literal", register='self.register_buffer("scale", None)')
    assert set(found) == {ASSERT}


def test_torch_module_lists_its_own_public_attributes_in_the_rules() -> None:
    (module,) = [r for r in load("startup")["outside_base"] if r["base"] == "torch.nn.Module"]
    own = set(module["own"])
    assert {"training", "forward", "parameters", "named_modules", "register_buffer", "to"} <= own
    assert not any(name.startswith("_") for name in own)


def test_the_block_runs_in_the_forward_context_its_caller_publishes(tmp_path) -> None:
    # ModelRunner publishes a ForwardContext around the model's forward (rules: the serving
    # rule's `context`); called without it, a block's read of the context would fail
    found, _result = _run(tmp_path)
    assert set(found) == {ASSERT}
    found, _result = _run(tmp_path / "bare", context=False)
    assert set(found) == {"sglang/srt/model_executor/forward_context.py:19"}   # before anything else
