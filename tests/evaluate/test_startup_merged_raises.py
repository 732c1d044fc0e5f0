"""A call's paths that raise the same exception at one place, each past a test of the run, are one
path for its caller: no phase reports them (flagscan/evaluate/startup/run.py
SurvivalTracking.merge_raises). A model's layer loop reaches one raise once per layer and per
branch around it; each path would otherwise run every `finally` and `with` exit on its way out
by itself. Paths to a raise a setting decides stay apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.startup.results import StartupResult
from flagscan.evaluate.startup.run import GlobalWrites, SurvivalTracking, startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree

TREE = {
    "sglang/srt/server_args.py": '''
class ServerArgs:
    def __init__(self, page_size=64):
        self.page_size = page_size
''',
    "sglang/srt/managers/tp_worker.py": '''
import os
from contextlib import contextmanager

import torch


def check(x):
    if x.shape[1] == 0:
        raise ValueError("an empty batch")


def layer_forward(x, page_size):
    if x.is_contiguous():
        check(x)
    else:
        check(x)
    if os.environ.get("STRICT_PAGES") and page_size != 64:
        raise RuntimeError("pages of 64 only")
    return x


def run_layers(x, page_size):
    for _ in range(8):
        x = layer_forward(x, page_size)
    return x


@contextmanager
def patched():
    try:
        yield
    finally:
        torch.cuda.synchronize()


class TpModelWorker:
    def __init__(self, server_args):
        x = torch.empty(4, 4)
        with patched():
            self.out = run_layers(x, server_args.page_size)
''',
}
STRICT = "sglang/srt/managers/tp_worker.py:19"


class _Startup(SurvivalTracking, GlobalWrites, Interpreter):
    exits = 0

    def exec_try(self, stmt: Any, state: Any, module: Any) -> Any:
        outcomes = super().exec_try(stmt, state, module)
        _Startup.exits += len(outcomes)
        return outcomes


def _run(tmp_path: Path, cls: type = _Startup, **settings: Any) -> StartupResult:
    real = load("startup")
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                        "args": {"server_args": "record"}}], "needs": real["needs"],
             "serving_batch": real["serving_batch"]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    world.env_open = True
    _Startup.exits = 0
    return run_startup_entries(cls(ModuleStore(root, tmp_path / "cache"), world), rules, settings)


def test_paths_of_the_run_to_one_raise_leave_a_call_as_one(tmp_path) -> None:
    result = _run(tmp_path, page_size=16)
    # 8 layers x 2 branches reach `raise ValueError` past tests of the tensor: one path out of
    # run_layers, so the with statement's exit runs for it once (and once for each layer's
    # path to the raise the environment decides, and once for the normal exit), not 16 + 9 times
    assert result.run_dependent == 1
    assert _Startup.exits == 1 + 8 + 1


def test_a_raise_a_setting_decides_is_reported_as_before(tmp_path) -> None:
    found = {r.location: (r.certain, r.needs) for r in _run(tmp_path, page_size=16).rejections}
    assert found[STRICT] == (False, ("env:STRICT_PAGES",))
    assert STRICT not in {r.location for r in _run(tmp_path, page_size=64).rejections}


def test_without_the_merge_every_path_leaves_on_its_own(tmp_path) -> None:
    class _Unmerged(_Startup):
        def merge_raises(self, raises: Any) -> Any:
            return raises

    result = _run(tmp_path, _Unmerged, page_size=16)
    assert result.run_dependent == 16
    found = {r.location: (r.certain, r.needs) for r in result.rejections}
    assert found[STRICT] == (False, ("env:STRICT_PAGES",))
