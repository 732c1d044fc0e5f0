"""A module whose import runs the tree's code (a decorator registry filling up) runs at its
`from X import Y`, as Python runs it, not when Y is first used (flagscan/evaluate/interp/
import_effects.py): 0.5.12 fp8.py imports a quant-info class from moe_runner/flashinfer_trtllm.py,
whose `@register_fused_func("none", "flashinfer_trtllm")` fills FusedOpPool, which MoeRunner
later reads; read lazily, the pool was empty and the runner's "requires a fused func" raise
looked certain."""

from __future__ import annotations

from pathlib import Path

from flagscan.evaluate.interp.import_effects import runs_tree_code
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

TREE = {
    "sglang/srt/base.py": '''
class FusedOpPool:
    _fused_funcs = {}

    @classmethod
    def register(cls, name, fn):
        cls._fused_funcs[name] = fn

    @classmethod
    def get(cls, name):
        return cls._fused_funcs.get(name)


def register_fused_func(name):
    def decorator(fn):
        FusedOpPool.register(name, fn)
        return fn
    return decorator
''',
    "sglang/srt/trtllm.py": '''
from dataclasses import dataclass

from sglang.srt.base import register_fused_func


@dataclass
class QuantInfo:
    block: int = 128


@register_fused_func("trtllm")
def fused(x):
    return x
''',
    "sglang/srt/plain.py": '''
import functools
from dataclasses import dataclass


@dataclass
class Info:
    block: int = 128


@functools.lru_cache()
def helper():
    return 1
''',
    "sglang/srt/runner.py": '''
from sglang.srt.base import FusedOpPool
from sglang.srt.trtllm import QuantInfo


def main():
    return FusedOpPool.get("trtllm") is not None
''',
}


def _interp(tmp_path: Path) -> Interpreter:
    root = write_tree(tmp_path / "tree", TREE)
    return Interpreter(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))


def test_a_registering_module_runs_at_its_from_import(tmp_path) -> None:
    interp = _interp(tmp_path)
    state = State({}, {})
    module = interp.import_module("sglang.srt.runner", state)
    assert isinstance(module, ModuleVal)
    assert interp.call(interp.deref(module.globals["main"], state), [], {}, state, module) is True


def test_only_modules_that_run_the_tree_s_code_at_import_are_run_at_once(tmp_path) -> None:
    interp = _interp(tmp_path)
    store = interp.store
    assert runs_tree_code(store, "sglang.srt.trtllm", store.get("sglang.srt.trtllm"))
    # decorators from outside the tree (dataclass, functools) only shape what the module defines
    assert not runs_tree_code(store, "sglang.srt.plain", store.get("sglang.srt.plain"))
    assert not runs_tree_code(store, "sglang.srt.base", store.get("sglang.srt.base"))
