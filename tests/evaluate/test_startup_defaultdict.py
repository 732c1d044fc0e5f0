"""`collections.defaultdict` in the startup run: SGLang's ModelRunner picks its CUDA-graph runner
class by device through one (0.5.5-0.5.23 init_device_graphs), so the runner is built only when a
missing key gives what the factory returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Obj, Unknown
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

RUNNER = """
from collections import defaultdict
import collections
import os


class CudaGraphRunner:
    def __init__(self, model_runner):
        self.model_runner = model_runner


class CPUGraphRunner:
    def __init__(self, model_runner):
        self.model_runner = model_runner


class ModelRunner:
    def __init__(self, device):
        self.device = device

    def init_device_graphs(self):
        graph_runners = defaultdict(
            lambda: CudaGraphRunner,
            {
                "cpu": CPUGraphRunner,
            },
        )
        self.graph_runner = graph_runners[self.device](self)
        return self.graph_runner


def main():
    return ModelRunner("cuda").init_device_graphs()


def on_cpu():
    return ModelRunner("cpu").init_device_graphs()


def grouped():
    groups = collections.defaultdict(list)
    groups["a"].append(1)
    groups["a"].append(2)
    groups["b"] = [3]
    return groups["a"], groups["b"], groups.get("c"), groups["c"]


def no_factory():
    table = defaultdict(None, {"cpu": 1})
    return table["cuda"]


def unknown_key():
    table = defaultdict(lambda: 0, {"cpu": 1})
    return table[os.environ.get("DEVICE")]


def unknown_store():
    table = defaultdict(lambda: 0, {"cpu": 1})
    table[os.environ.get("DEVICE")] = 5
    return table["cpu"], table["cuda"]
"""


def _run(tmp_path: Path, function: str) -> tuple[Any, State]:
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": RUNNER})
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}, env_open=True))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    try:
        return interp.call(interp.deref(module.globals[function], state), [], {}, state, module), state
    except Dead:
        return Dead, state


def test_a_device_missing_from_the_table_gets_the_factory_class(tmp_path) -> None:
    runner, _ = _run(tmp_path, "main")
    assert isinstance(runner, Obj) and runner.cls.name == "CudaGraphRunner"


def test_a_device_in_the_table_gets_its_own_class(tmp_path) -> None:
    runner, _ = _run(tmp_path, "on_cpu")
    assert isinstance(runner, Obj) and runner.cls.name == "CPUGraphRunner"


def test_the_factory_value_is_kept_under_the_key_and_get_does_not_call_it(tmp_path) -> None:
    value, _ = _run(tmp_path, "grouped")
    assert value == ([1, 2], [3], None, [])


def test_a_missing_key_without_a_factory_raises_key_error(tmp_path) -> None:
    value, state = _run(tmp_path, "no_factory")
    assert value is Dead
    assert [exc.type_name for _s, exc in state.raised] == ["KeyError"]


def test_a_key_not_known_gives_a_value_not_known(tmp_path) -> None:
    value, _ = _run(tmp_path, "unknown_key")
    assert isinstance(value, Unknown)


def test_a_store_under_a_key_not_known_leaves_no_entry_known(tmp_path) -> None:
    value, _ = _run(tmp_path, "unknown_store")
    assert isinstance(value, tuple) and all(isinstance(v, Unknown) for v in value)
