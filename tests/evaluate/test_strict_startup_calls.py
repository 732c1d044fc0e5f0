"""Constructs the startup run reaches in SGLang's models and utilities that the interpreter
follows without giving up: calling a torch.nn.Module instance (its `forward` runs) and a store
through a `collections.defaultdict` entry read under a key not known.

Each test runs under FLAGSCAN_STRICT=1, so a give-up fails it (GaveUp).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flagscan.evaluate.interp import Dead, Interpreter
from flagscan.evaluate.startup.outside import OutsideBaseMethods, outside_calls, outside_self
from flagscan.evaluate.state import State
from flagscan.evaluate.values import Maybe, ModuleVal, Unknown
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from flagscan.strict import GaveUp
from tests.evaluate.helpers import run, write_tree

pytestmark = pytest.mark.usefixtures("strict")


class _Startup(OutsideBaseMethods, Interpreter):
    returns_self, calls = outside_self(load("startup")), outside_calls(load("startup"))


def _call(tmp_path: Path, source: str, function: str = "main") -> Any:
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": source})
    interp = _Startup(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    try:
        return interp.call(interp.deref(module.globals[function], state), [], {}, state, module)
    except Dead:
        return Dead


MODULES = """
from torch import nn

class Layer(nn.Module):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return x * self.k

class Model(nn.Module):
    def __init__(self):
        self.layer = Layer(3)

    def forward(self, x, scale=1):
        return self.layer(x) * scale + 1

class OwnCall(nn.Module):
    def __call__(self, x):
        return "own"

    def forward(self, x):
        return "forward"

class Plain:
    def forward(self, x):
        return x

def main():
    model = Model()
    return model(2), model(2, scale=10), OwnCall()(0)

def plain():
    return Plain()(1)
"""


def test_calling_an_nn_module_instance_runs_its_forward(tmp_path) -> None:
    # 0.5.10 models/llama.py LlamaForCausalLM.forward: `hidden_states = self.model(input_ids, ...)`;
    # torch's Module.__call__ runs forward (rules/startup.toml [[outside_base]] call); a class's
    # own __call__ is still the one called
    assert _call(tmp_path, MODULES) == (7, 61, "own")


def test_calling_an_instance_without_a_call_method_still_gives_up(tmp_path) -> None:
    # a tree class with no outside base whose __call__ is known: Python raises TypeError; not modelled
    with pytest.raises(GaveUp):
        _call(tmp_path, MODULES, function="plain")


def test_the_outside_call_method_is_rule_data() -> None:
    calls = outside_calls(load("startup"))
    assert calls == {"torch.nn.Module": "forward"}


NUMA = """
from collections import defaultdict

def main(node):
    physical_by_node = defaultdict(dict)
    physical_by_node[0]["seen"] = 1
    first = physical_by_node[0]
    for key in ("a", "b"):
        if key not in physical_by_node[node]:
            physical_by_node[node][key] = 5
    return first, physical_by_node[1], physical_by_node.get(2), physical_by_node[node]
"""


def test_a_store_through_a_defaultdict_entry_under_a_key_not_known_may_reach_any_entry(tmp_path) -> None:
    # 0.5.14-0.5.23 utils/common.py get_physical_cpus_by_numa: `physical_by_node[node][key] = cpu`
    # with the NUMA node read from lscpu: the entry written may be any one, so each may hold it
    (first, later, got, some), interp = run(tmp_path, NUMA, args=(Unknown("node"),))
    assert first["seen"] == 1
    assert isinstance(first["a"], Maybe) and first["a"].value == 5 and isinstance(first["b"], Maybe)
    # a key read afterwards may be the entry the key not known made, or a fresh one: not known
    assert isinstance(later, Unknown) and later.options is not None and len(later.options) == 2
    assert {} in later.options and any(o is not later.options[1] and "a" in o for o in later.options)
    assert isinstance(got, Unknown) and got.options is not None and None in got.options
    assert isinstance(some, Unknown) and some.options is not None and any(isinstance(o, dict) and o.get("seen") == 1 for o in some.options)
    assert interp.stops == []


def test_a_defaultdict_read_under_a_key_not_known_before_any_store_is_one_of_its_entries(tmp_path) -> None:
    value, _ = run(tmp_path, """
from collections import defaultdict

def main(node):
    groups = defaultdict(list)
    groups["a"].append(1)
    return groups[node]
""", args=(Unknown("node"),))
    assert isinstance(value, Unknown) and value.options is not None and sorted(map(len, value.options)) == [0, 1]
