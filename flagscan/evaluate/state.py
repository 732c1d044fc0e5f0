"""evaluate: one execution path's state (heap, locals, assumptions, events) and joins of paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flagscan.evaluate.values import Unknown

MAX_OPTIONS = 8


@dataclass(eq=False)
class Event:
    """Something that happened on a path: a field write, a log call, a rejection."""

    kind: str              # write | log | raise
    location: str          # sglang/srt/server_args.py:1091
    function: str          # the enclosing function's name (the handler)
    conds: tuple[str, ...]  # enclosing if-tests as source text, negated for else branches
    assumptions: tuple[str, ...]  # tests that were unknown and assumed on this path
    oid: int = 0
    attr: str = ""
    value: Any = None
    level: str = ""
    message: Any = None


@dataclass(eq=False)
class State:
    heap: dict[int, dict[str, Any]]
    locals: dict[str, Any]
    assumptions: tuple[str, ...] = ()
    conds: tuple[str, ...] = ()
    events: list[Event] = field(default_factory=list)
    owned: set[int] = field(default_factory=set)
    raised: list[tuple["State", Any]] = field(default_factory=list)
    function: str = "<module>"

    def fork(self) -> "State":
        self.owned = set()  # every heap dict is now shared with the child
        return State(dict(self.heap), dict(self.locals), self.assumptions, self.conds,
                     list(self.events), set(), [], self.function)

    def adopt(self, other: "State") -> None:
        self.heap, self.locals = other.heap, other.locals
        self.assumptions, self.conds = other.assumptions, other.conds
        self.events, self.owned = other.events, other.owned

    def attrs(self, oid: int) -> dict[str, Any]:
        return self.heap.setdefault(oid, {})

    def writable(self, oid: int) -> dict[str, Any]:
        if oid not in self.owned:
            self.heap[oid] = dict(self.heap.get(oid, {}))
            self.owned.add(oid)
        return self.heap[oid]


def same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    plain = (str, int, float, bool, type(None), tuple, list, dict, frozenset, set)
    if isinstance(a, plain) and isinstance(b, plain):
        try:
            return type(a) is type(b) and bool(a == b)
        except Exception:
            return False
    return False


def join_values(values: list[Any], why: str) -> Any:
    first = values[0]
    if all(same(first, v) for v in values[1:]):
        return first
    options: list[Any] = []
    needs: set[str] = set()
    complete = True
    for v in values:
        if isinstance(v, Unknown):
            needs |= v.needs
            if v.options is None:
                complete = False
            else:
                for o in v.options:
                    if not any(same(o, x) for x in options):
                        options.append(o)
        elif not any(same(v, x) for x in options):
            options.append(v)
    keep = complete and len(options) <= MAX_OPTIONS
    return Unknown(why, needs, tuple(options) if keep else None)


def join_states(states: list[State], why: str) -> State:
    if len(states) == 1:
        return states[0]
    base = states[0]
    heap: dict[int, dict[str, Any]] = {}
    for oid in set().union(*(s.heap.keys() for s in states)):
        dicts = [s.heap.get(oid) for s in states]
        present = [d for d in dicts if d is not None]
        if all(d is present[0] for d in present):
            heap[oid] = present[0]
            continue
        merged: dict[str, Any] = {}
        for key in set().union(*(d.keys() for d in present)):
            vals = [d[key] if key in d else Unknown(f"{key} set on one path only") for d in present]
            merged[key] = join_values(vals, why)
        heap[oid] = merged
    local: dict[str, Any] = {}
    for key in set().union(*(s.locals.keys() for s in states)):
        vals = [s.locals.get(key, Unknown(f"{key} bound on one path only")) for s in states]
        local[key] = join_values(vals, why)
    assumptions = _common_prefix([s.assumptions for s in states])
    seen: set[int] = set()
    events: list[Event] = []
    for s in states:
        for e in s.events:
            if id(e) not in seen:
                seen.add(id(e))
                events.append(e)
    return State(heap, local, assumptions, base.conds, events, set(), [], base.function)


def _common_prefix(seqs: list[tuple[str, ...]]) -> tuple[str, ...]:
    out = []
    for items in zip(*seqs):
        if all(i == items[0] for i in items):
            out.append(items[0])
        else:
            break
    return tuple(out)
