"""A module first imported on one path: the paths forked before it see the objects its import made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Unknown
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import options, write_tree

# A module-level singleton, as debug_utils/dumper.py's `dumper = _Dumper(...)` is.
SINGLETON = '''
class _State:
    def __init__(self):
        self.captured = None
        self.items = []

class _Dumper:
    def __init__(self):
        self._state = _State()

    def dump(self, name):
        if self._state.captured is not None:
            self._state.captured[name] = 1
        self._state.items.append(name)
        return getattr(self._state, "captured", "missing"), hasattr(self._state, "items")

dumper = _Dumper()
'''

# The singleton is imported on the if-side of a branch on a fact not given, then on the else-side
# (and after the join): each side must see the object the import made, not an empty one.
USER = '''
import os

def main():
    if os.environ.get("A"):
        from sglang.srt.single import dumper
        first = dumper.dump("a")
    else:
        from sglang.srt.single import dumper
        first = dumper.dump("b")
    from sglang.srt.single import dumper as again
    return first, again._state.items
'''


def _main(tmp_path: Path) -> tuple[Any, Interpreter]:
    root = write_tree(tmp_path / "tree", {"sglang/srt/single.py": SINGLETON, "sglang/srt/mod.py": USER})
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}, env_open=True))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    return interp.call(interp.deref(module.globals["main"], state), [], {}, state, module), interp


def test_a_path_forked_before_the_first_import_sees_what_the_import_made(tmp_path) -> None:
    (captured, has_items), _ = _main(tmp_path)[0]
    # before: on the else-side `dumper` had no attributes, so getattr(..., "missing") was a certain
    # "missing" and hasattr a certain False, and the item store gave up on an unknown container
    assert options(captured) == {None}
    assert options(has_items) == {True}


def test_the_import_objects_are_not_changed_by_the_path_that_made_them(tmp_path) -> None:
    (_, items), interp = _main(tmp_path)
    # each side appended its own name to the list the import made; neither sees the other's append
    assert not interp.stops
    assert isinstance(items, Unknown) and sorted(map(tuple, items.options or ())) == [("a",), ("b",)]
