"""A call answered from an lru_cache memo records again the settings computing it read.

A startup raise lists the record attributes its path read (StartupRaise.reads, the
evidence of report's REJECTED). When a memoized function was first called on another
path, the path that gets the cached result must still list what that result rests on;
otherwise the list depends on which path filled the memo first.
"""

from __future__ import annotations

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Obj
from flagscan.evaluate.startup.serving import SettingReads, path_reads
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

SOURCE = '''
import functools
import os


class Args:
    def __init__(self):
        self.attention_backend = "fa3"
        self.page_size = 1


ARGS = Args()


@functools.lru_cache
def backend():
    return ARGS.attention_backend


def main():
    if os.environ.get("SGLANG_X"):   # not given: both branches run
        WARM
        return 1
    if backend() == "fa3":
        raise ValueError("fa3 refused")
    return 2
'''


class _Interp(SettingReads, Interpreter):
    pass


def _raise_reads(tmp_path, warm: str) -> list[tuple[str, ...]]:
    root = write_tree(tmp_path / warm.replace("(", "").replace(")", "").replace(".", "") / "tree",
                      {"sglang/srt/mod.py": SOURCE.replace("WARM", warm)})
    interp = _Interp(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}, env_open=True))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    record = interp.deref(module.globals["ARGS"], state)
    assert isinstance(record, Obj)
    interp.read_record = record.oid
    try:
        interp.call(interp.deref(module.globals["main"], state), [], {}, state, module)
    except Dead:
        pass
    return [path_reads(list(s.events)) for s, _exc in state.raised]


def test_the_raise_path_lists_the_read_made_when_the_memo_was_filled_on_another_path(tmp_path) -> None:
    cold = _raise_reads(tmp_path, "pass")            # the raise path computes backend() itself
    warm = _raise_reads(tmp_path, "backend()")       # the other path filled the memo first
    assert cold == [("attention_backend",)]
    assert warm == cold

