"""Publishing the settings before the TP worker is built (0.5.23 runtime_context.publish): the
prelude passes the launcher's placement as an instance of the tree's own class, and the
placement check that collects problems in a list raises only on the paths that found one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Obj, Unknown
from flagscan.evaluate.startup.run import SurvivalTracking
from flagscan.evaluate.startup.specs import spec_value
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

CONTEXT = """
import os

_UNREADABLE = object()


class SpawnRanks:
    def __init__(self, world_rank, dp_rank=None, gpu_id=None):
        self.world_rank = world_rank
        self.dp_rank = dp_rank
        self.gpu_id = gpu_id


def read(value):
    if not isinstance(value, int):
        return _UNREADABLE
    return value


def validate():
    # runtime_context.py _validate_parallel: every rank read, problems collected, one raise
    rank = read(int(os.environ.get("RANK")))
    problems = []
    for name in ("tp_rank", "pp_rank"):
        if _UNREADABLE in (rank, 1):
            continue
        if not 0 <= rank < 1:
            problems.append(name)
    if problems:
        raise ValueError("parallel topology is inconsistent: " + ", ".join(problems))
    return "published"
"""


class _Startup(SurvivalTracking, Interpreter):
    pass


def _setup(tmp_path: Path) -> tuple[Any, State, ModuleVal]:
    root = write_tree(tmp_path / "tree", {"sglang/srt/runtime_context.py": CONTEXT})
    interp = _Startup(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}, env_open=True))
    state = State({}, {})
    module = interp.import_module("sglang.srt.runtime_context", state)
    assert isinstance(module, ModuleVal)
    return interp, state, module


def test_a_prelude_argument_may_be_an_instance_of_a_tree_class(tmp_path) -> None:
    interp, state, _module = _setup(tmp_path)
    spec = {"class": "sglang.srt.runtime_context.SpawnRanks",
            "args": {"world_rank": "const:0", "gpu_id": "const:0", "not_a_parameter": "const:1"}}
    ranks = spec_value(spec, None, interp, state)
    assert isinstance(ranks, Obj) and ranks.cls.name == "SpawnRanks"
    assert state.attrs(ranks.oid) == {"world_rank": 0, "dp_rank": None, "gpu_id": 0}


def test_a_class_the_release_lacks_is_an_unknown_argument(tmp_path) -> None:
    interp, state, _module = _setup(tmp_path)
    assert isinstance(spec_value({"class": "sglang.srt.runtime_context.Missing", "args": {}}, None, interp, state),
                      Unknown)
    assert isinstance(spec_value({"class": "sglang.srt.absent.SpawnRanks", "args": {}}, None, interp, state), Unknown)


def test_a_list_filled_on_some_paths_only_may_be_empty(tmp_path) -> None:
    # the problems list holds elements present on some paths only: `if problems:` is not known,
    # so the raise is possible under that test, never certain
    interp, state, module = _setup(tmp_path)
    try:
        value = interp.call(interp.deref(module.globals["validate"], state), [], {}, state, module)
    except Dead:
        value = Dead
    assert value == "published"
    assert [exc.type_name for _s, exc in state.raised] == ["ValueError"]
    assert all(s.assumptions and not set(s.assumptions) <= interp.survival for s, _exc in state.raised)
