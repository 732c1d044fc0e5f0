"""evaluate: one execution path's state (heap, locals, assumptions, events) and joins of paths.

Forks are cheap: heap dicts are shared until written (copy on write), events form
a persistent chain shared with the parent, and every state remembers which heap
objects it (or its ancestors) modified, so a join only compares those.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flagscan.evaluate.interp.values import Fresh, Maybe, Outside, OutsideAttr, PartlySet, Unknown

MAX_OPTIONS = 8


class _Open:
    """The key of a dict that marks it open: after `d[k] = v` with `k` unknown, any
    key may be present; `d[OPEN]` is what such a key may hold."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<any other key>"


OPEN = _Open()


def open_dict(d: dict[Any, Any], value: Any, needs: frozenset[str] = frozenset()) -> None:
    """`d[unknown] = value`: each entry d held may now be `value`; other keys may exist.
    `needs`: what would decide the key."""
    for k in list(d):
        if k is not OPEN:
            old = d[k]
            inner = old.value if isinstance(old, Maybe) else old
            joined = join_values([inner, value], "an entry written under an unknown key")
            if isinstance(joined, Unknown) and needs:
                joined = Unknown(joined.why, joined.needs | needs, joined.options, joined.truth)
            d[k] = Maybe(joined) if isinstance(old, Maybe) else joined
    # another key is absent (a KeyError) or holds `value`: nothing certain
    d[OPEN] = Unknown("a key written as unknown", frozenset(getattr(value, "needs", ())) | needs)


def may_match(d: dict[Any, Any], key: Any) -> bool:
    """Whether `key`, a tuple holding values not known (`(item.hash, n)`), is not a key of `d` as
    Python compares, yet may equal one: a part not known may be any value. Such a key is a key
    not known there (the same tuple object, or equal known parts, is found as it is)."""
    if isinstance(key, Unknown) or not isinstance(key, tuple) or not _holds_unknown(key):
        return False
    try:
        if key in d:
            return False
    except TypeError:
        return False
    return any(k is not OPEN and _may_equal(key, k) for k in d)


def key_needs(key: Any) -> frozenset[str]:
    """What would decide a key holding values not known: what each of them needs."""
    if isinstance(key, Unknown):
        return key.needs
    if isinstance(key, tuple):
        return frozenset().union(*(key_needs(k) for k in key))
    return frozenset()


def _holds_unknown(key: tuple[Any, ...]) -> bool:
    return any(isinstance(k, Unknown) or (isinstance(k, tuple) and _holds_unknown(k)) for k in key)


def _may_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        if isinstance(a, Unknown) and isinstance(b, Unknown):
            return True
        unknown, other = (a, b) if isinstance(a, Unknown) else (b, a)
        if unknown.options is None:
            return True
        return any(_may_equal(o, other) for o in unknown.options)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_may_equal(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except Exception:   # a comparison Python refuses: these two keys are not decided here
        return True


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


class Chain:
    """A persistent list of events: a new event links to the chain it extends."""

    __slots__ = ("_firsts", "depth", "event", "prev")

    def __init__(self, event: Event | None, prev: Chain | None) -> None:
        self.event = event
        self.prev = prev
        self.depth: int = 0 if prev is None else prev.depth + 1
        self._firsts: tuple[str, tuple[str, ...]] | None = None

    def __iter__(self) -> Iterator[Event]:
        items = []
        node: Chain | None = self
        while node is not None and node.event is not None:
            items.append(node.event)
            node = node.prev
        return iter(reversed(items))

    def newest(self, kind: str) -> Event | None:
        """The newest event of this kind (walked from the newest: the chain is linked that way)."""
        node: Chain | None = self
        while node is not None and node.event is not None:
            if node.event.kind == kind:
                return node.event
            node = node.prev
        return None

    def firsts(self, kind: str) -> tuple[str, ...]:
        """The attributes of the events of `kind`, each once, in first-event order (oldest first).

        Every raise of a startup run asks this of its path, and paths share long histories, so
        the answer is kept on the node asked and on every 256th node walked: the next question
        walks back only to the nearest node that knows."""
        path: list[Chain] = []
        node: Chain = self
        while node.event is not None and (node._firsts is None or node._firsts[0] != kind):
            path.append(node)
            node = node.prev  # type: ignore[assignment]  # a node with an event has a prev
        known = node._firsts[1] if node._firsts is not None else ()
        seen, out = set(known), list(known)
        for each in reversed(path):
            event = each.event
            if event is not None and event.kind == kind and event.attr not in seen:
                seen.add(event.attr)
                out.append(event.attr)
            if each.depth % 256 == 0 or each is self:
                each._firsts = (kind, tuple(out))
        return tuple(out)

    def since(self, count: int) -> list[Event]:
        """The events after the first `count`, oldest first (`list(chain)[count:]`; a node's
        depth is the number of events up to it)."""
        items = []
        node: Chain | None = self
        while node is not None and node.event is not None and node.depth > count:
            items.append(node.event)
            node = node.prev
        items.reverse()
        return items


EMPTY = Chain(None, None)


def merge_chains(chains: list[Chain]) -> Chain:
    """Events of every chain once, shared history first."""
    first = chains[0]
    if all(c is first for c in chains):
        return first
    base = first
    for other in chains[1:]:
        base = _common(base, other)
    out = base
    seen: set[int] = set()
    for chain in chains:
        part = []
        node: Chain | None = chain
        while node is not None and node is not base:
            part.append(node.event)
            node = node.prev
        for event in reversed(part):
            if event is not None and id(event) not in seen:
                seen.add(id(event))
                out = Chain(event, out)
    return out


def _common(a: Chain, b: Chain) -> Chain:
    while a.depth > b.depth:
        a = a.prev  # type: ignore[assignment]
    while b.depth > a.depth:
        b = b.prev  # type: ignore[assignment]
    while a is not b:
        if a.prev is None or b.prev is None:
            return EMPTY
        a, b = a.prev, b.prev
    return a


@dataclass(eq=False)
class State:
    heap: dict[int, dict[str, Any]]
    locals: dict[str, Any]
    assumptions: tuple[str, ...] = ()
    conds: tuple[str, ...] = ()
    chain: Chain = EMPTY
    owned: set[int] = field(default_factory=set)
    raised: list[tuple[State, Any]] = field(default_factory=list)
    function: str = "<module>"
    # Mutable containers (lists, dicts, sets) this path may mutate in place; any
    # other one is copied the first time this path reads it (copy on read), so
    # that an append on one side of a fork never shows on the other.
    owned_values: set[int] = field(default_factory=set)
    # Heap objects written on this path since the last fork (what a join
    # compares), and the sets of the enclosing fork levels: (set, outer, depth).
    modified: set[int] = field(default_factory=set)
    outer: tuple[set[int], Any, int] | None = None
    # The enclosing function's locals a nested function reads (set per call; kept by forks
    # and joins, so a closure name stays readable after a branch inside the nested function).
    closure: dict[str, Any] | None = None
    # The heap dict itself is shared with another path (a fork shares it until one of them
    # adds or replaces an entry: `heap_w` copies it first).
    heap_shared: bool = False

    @property
    def events(self) -> Iterator[Event]:
        return iter(self.chain)

    def add_event(self, event: Event) -> None:
        self.chain = Chain(event, self.chain)

    def fork(self) -> State:
        self.owned = set()  # every heap dict is now shared with the child
        self.owned_values = set()
        self.outer = (self.modified, self.outer, 1 + (self.outer[2] if self.outer is not None else 0))
        self.modified = set()
        self.heap_shared = True
        return State(self.heap, dict(self.locals), self.assumptions, self.conds,
                     self.chain, set(), [], self.function, set(), set(), self.outer, self.closure, True)

    def heap_w(self) -> dict[int, dict[str, Any]]:
        """The heap dict, for adding or replacing an entry (a copy of it first if it is shared)."""
        if self.heap_shared:
            self.heap = dict(self.heap)
            self.heap_shared = False
        return self.heap

    def adopt(self, other: State) -> None:
        self.heap, self.locals = other.heap, other.locals
        self.heap_shared = other.heap_shared
        self.assumptions, self.conds = other.assumptions, other.conds
        self.chain, self.owned = other.chain, other.owned
        self.owned_values, self.modified = other.owned_values, other.modified
        self.outer = other.outer
        self.closure = other.closure

    def own(self, value: Any) -> tuple[Any, bool]:
        """(a container this path may mutate, whether it is a fresh copy)."""
        if isinstance(value, (list, dict, set)) and id(value) not in self.owned_values:
            value = value.copy()
            self.owned_values.add(id(value))
            return value, True
        return value, False

    def attrs(self, oid: int) -> dict[str, Any]:
        found = self.heap.get(oid)
        if found is None:
            found = self.heap_w()[oid] = {}
        return found

    def writable(self, oid: int) -> dict[str, Any]:
        self.modified.add(oid)
        if oid not in self.owned:
            heap = self.heap_w()
            heap[oid] = dict(heap.get(oid, {}))
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
    if len(values) == 2:
        if same(first, values[1]):
            return first
    elif all(same(first, v) for v in values[1:]):
        return first
    if all(isinstance(v, list) for v in values):
        joined = _join_lists(values)
        if joined is not None:
            return joined
    if all(isinstance(v, dict) for v in values):
        return _join_dicts(values, why)
    if all(isinstance(v, Fresh) for v in values):
        return _join_fresh(values, why)
    options: list[Any] = []
    needs: set[str] = set()
    complete = True
    for v in values:
        if isinstance(v, Unknown):
            needs |= v.needs
        if not complete:
            continue  # no options kept (one value has none, or too many): only what each needs
        if isinstance(v, Unknown):
            if v.options is None:
                complete = False
            else:
                for o in v.options:
                    if not any(same(o, x) for x in options):
                        options.append(o)
        elif not any(same(v, x) for x in options):
            options.append(v)
        if len(options) > MAX_OPTIONS:
            complete = False
    keep = complete and len(options) <= MAX_OPTIONS
    return Unknown(why, needs, tuple(options) if keep else None)


def _join_fresh(values: list[Any], why: str) -> Fresh:
    """New containers made on each path (`[... for x in unknown]` on both sides of a branch): the
    one this path holds is a new container too, so a store into it still reaches no object the
    model knows; its elements are known to be like one element only where every side says so."""
    needs: set[str] = set().union(*(v.needs for v in values))
    if not all(v.known for v in values):
        return Fresh(why, needs)
    elements = [v.element for v in values]
    if all(isinstance(e, Outside) for e in elements) and not all(same(e, elements[0]) for e in elements):
        # each side's elements are outside code's objects (tensors), not the same ones
        element_needs = frozenset().union(*(e.needs for e in elements))
        element: Any = OutsideAttr(why, None, element_needs) if any(isinstance(e, OutsideAttr) for e in elements) \
            else Outside(why, element_needs)
    else:
        element = join_values(elements, why)   # an element is like one side's
    return Fresh(why, needs, element, True)


def _join_lists(lists: list[list[Any]]) -> list[Any] | None:
    """Lists that share a prefix and differ by what was appended on some paths:
    the prefix, then every appended element as Maybe."""
    shortest = min(len(l) for l in lists)
    prefix = 0
    while prefix < shortest and all(_same_item(lists[0][prefix], l[prefix]) for l in lists[1:]):
        prefix += 1
    if prefix == 0 and shortest > 0:
        return None
    out = list(lists[0][:prefix])
    for l in lists:
        for item in l[prefix:]:
            out.append(item if isinstance(item, Maybe) else Maybe(item))
    return out


def _join_dicts(dicts: list[dict[Any, Any]], why: str) -> dict[Any, Any]:
    """Key by key: a key some paths lack holds a Maybe of its joined value."""
    out: dict[Any, Any] = {}
    for k in dict.fromkeys(k for d in dicts for k in d):  # each key once, first-seen order
        present = [d[k] for d in dicts if k in d]
        inner = [v.value if isinstance(v, Maybe) else v for v in present]
        value = join_values(inner, why) if len(inner) > 1 else inner[0]
        maybe = len(present) < len(dicts) or any(isinstance(v, Maybe) for v in present)
        out[k] = Maybe(value) if maybe else value
    return out


def _same_item(a: Any, b: Any) -> bool:
    return a is b or same(a, b)


_MISSING = object()


def join_states(states: list[State], why: str, chain: Chain | None = None) -> State:
    """One state for several paths that meet: what they share is kept, what differs is joined.

    This runs about a million times in one cold startup phase of a large release, and most
    of the objects it compares are the same dict on every path, so the common two-path
    case is written out without per-object lists (same results as the general case)."""
    if len(states) == 1:
        return states[0]
    base = states[0]
    changes: dict[int, dict[str, Any]] = {}  # the heap is base's, but for these entries
    outer = base.outer
    collapse = True
    if all(s.outer is outer for s in states):
        candidates: set[int] = set().union(*(s.modified for s in states))
    else:  # paths from different fork levels (an early return): compare what each wrote since
        # the nearest level they share (all they wrote, when they share none); the joined path
        # stays at that level
        outer, candidates = _written_since(states)
        collapse = False
    if len(states) == 2:
        heap_a, heap_b = base.heap, states[1].heap
        for oid in candidates:
            da, db = heap_a.get(oid), heap_b.get(oid)
            if da is db or db is None:
                continue  # base's own entry (or none on either path)
            changes[oid] = db if da is None else _join_attrs([da, db], why)
    else:
        heaps = [s.heap for s in states]
        base_heap = base.heap
        for oid in candidates:
            present = [d for d in (h.get(oid) for h in heaps) if d is not None]
            if not present:
                continue
            first = present[0]
            value = first if all(d is first for d in present) else _join_attrs(present, why)
            if value is not base_heap.get(oid):
                changes[oid] = value
    if changes:
        heap = dict(base.heap)
        heap.update(changes)
    else:  # the joined path reads base's heap dict: both copy it before they add to it
        heap = base.heap
        base.heap_shared = True
    first_locals = base.locals
    if all(s.locals is first_locals for s in states):
        local = first_locals
    else:
        local = _join_locals([s.locals for s in states], why)
    assumptions = _common_prefix([s.assumptions for s in states])
    chain = merge_chains([s.chain for s in states]) if chain is None else chain
    if outer is not None and collapse:
        outer[0].update(candidates)  # back into the enclosing level's set
        modified, outer = outer[0], outer[1]
    else:
        modified = candidates
    return State(heap, local, assumptions, base.conds, chain, set(), [], base.function, set(), modified, outer,
                 base.closure, not changes)


def _common_level(outers: list[Any]) -> Any:
    """The nearest fork level (an `outer` link) every path descends from; None when none is shared.
    A heap object none of the paths wrote since that level is the same dict on all of them."""
    common = outers[0]
    for other in outers[1:]:
        if common is None or other is None:
            return None
        while common[2] > other[2]:  # to the same depth (each level knows its own), then up together
            common = common[1]
        while other[2] > common[2]:
            other = other[1]
        while common is not other:
            if common is None or other is None:
                return None
            common, other = common[1], other[1]
    return common


def _written_since(states: list[State]) -> tuple[Any, set[int]]:
    """(the nearest fork level the paths share, the heap objects any of them wrote since)."""
    common = _common_level([s.outer for s in states])
    written: set[int] = set()
    for s in states:
        written |= s.modified
        level = s.outer
        while level is not common and level is not None:
            written |= level[0]
            level = level[1]
    return common, written


def _join_attrs(present: list[dict[str, Any]], why: str) -> dict[str, Any]:
    """One heap object's attributes on the paths that hold it. An attribute some paths did not
    set is a PartlySet of what the others set (`hasattr` is not known there; a plain read is
    unknown, as it is for a name bound on one path only)."""
    out: dict[str, Any] = {}
    if len(present) == 2:   # most joins: two paths, whose dicts mostly hold the same objects
        a, b = present
        for key, va in a.items():
            vb = b.get(key, _MISSING)
            if va is vb:
                out[key] = va
            elif vb is _MISSING or isinstance(va, PartlySet) or isinstance(vb, PartlySet):
                out[key] = _partly_set(key, [va, vb], why)
            else:
                out[key] = join_values([va, vb], why)
        for key, vb in b.items():
            if key not in a:
                out[key] = _partly_set(key, [_MISSING, vb], why)
        return out
    for key in dict.fromkeys(k for m in present for k in m):   # each key once, first-seen order
        vals = [m.get(key, _MISSING) for m in present]
        first = vals[0]
        if first is not _MISSING and all(v is first for v in vals):
            out[key] = first
        elif any(v is _MISSING or isinstance(v, PartlySet) for v in vals):
            out[key] = _partly_set(key, vals, why)
        else:
            out[key] = join_values(vals, why)
    return out


def _partly_set(key: str, vals: list[Any], why: str) -> Any:
    """The join of an attribute's values where some paths lack it (_MISSING) or hold a PartlySet."""
    inner = [v.value if isinstance(v, PartlySet) else v for v in vals if v is not _MISSING]
    value = inner[0] if len(inner) == 1 else join_values(inner, why)
    needs = frozenset().union(*(v.needs for v in vals if isinstance(v, PartlySet)))
    return PartlySet(f"{key} set on some paths only", needs | (value.needs if isinstance(value, Unknown) else set()),
                     value)


def partly_set_or(value: PartlySet, other: Any, why: str) -> Any:
    """An attribute set on some paths only, read where the others give `other` (getattr's default,
    the class's own attribute): the join, needing what whether it is set needs."""
    joined = join_values([value.value, other], why)
    if isinstance(joined, Unknown) and value.needs:
        return Unknown(joined.why, joined.needs | value.needs, joined.options, joined.truth)
    return joined


def _join_locals(scopes: list[dict[str, Any]], why: str) -> dict[str, Any]:
    return _join_keyed(scopes, why, "bound on one path only")


def _join_keyed(maps: list[dict[str, Any]], why: str, lacking: str) -> dict[str, Any]:
    """Key by key; a key some maps lack is `lacking` there (an unknown). A key bound to the same
    object in every map keeps it without a join."""
    out: dict[str, Any] = {}
    if len(maps) == 2:   # most joins: two paths, whose maps mostly hold the same objects
        a, b = maps
        for key, va in a.items():
            vb = b.get(key, _MISSING)
            out[key] = va if va is vb else join_values(
                [va, Unknown(f"{key} {lacking}") if vb is _MISSING else vb], why)
        for key, vb in b.items():
            if key not in a:
                out[key] = join_values([Unknown(f"{key} {lacking}"), vb], why)
        return out
    for key in set().union(*(m.keys() for m in maps)):
        vals = [m.get(key, _MISSING) for m in maps]
        first = vals[0]
        if first is not _MISSING and all(v is first for v in vals):
            out[key] = first
            continue
        out[key] = join_values([Unknown(f"{key} {lacking}") if v is _MISSING else v for v in vals], why)
    return out


def widen(joined: State, before: State) -> State:
    """After a loop whose passes are not counted (an unknown iterable or test): a value
    the body changed may have changed any number of times, so its options are not
    the only ones (`n += 1` once is not `n` in {0, 1})."""
    for key, value in list(joined.locals.items()):
        if isinstance(value, Unknown) and value.options is not None and not same(value, before.locals.get(key)):
            joined.locals[key] = Unknown(value.why, value.needs, None, value.truth)
    if joined is before:
        return joined
    for oid in _written_since([joined, before])[1]:
        attrs, old = joined.heap.get(oid), before.heap.get(oid)
        if attrs is old or attrs is None:
            continue
        changed = {k: v for k, v in attrs.items()
                   if (isinstance(v, PartlySet) or (isinstance(v, Unknown) and v.options is not None))
                   and not same(v, (old or {}).get(k))}
        if changed:
            fresh = dict(attrs)
            for k, v in changed.items():
                if isinstance(v, PartlySet):   # what some number of passes set, each from the one before
                    needs = v.value.needs if isinstance(v.value, Unknown) else frozenset()
                    fresh[k] = PartlySet(v.why, v.needs, Unknown(f"{k} (a loop's passes not counted)", needs))
                else:
                    fresh[k] = Unknown(v.why, v.needs, None, v.truth)
            joined.heap_w()[oid] = fresh
            joined.modified.add(oid)
    return joined


def _common_prefix(seqs: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The longest prefix all share. The paths' assumptions run to hundreds and mostly differ
    at the end, so prefixes are compared whole (tuple comparison), by bisection."""
    first = seqs[0]
    rest = seqs[1:]
    if all(s is first for s in rest):
        return first
    low, high = 0, min(len(s) for s in seqs)  # first[:low] is shared; first[:high + 1] is not
    if all(s[:high] == first[:high] for s in rest):
        return first[:high]
    while high - low > 1:
        mid = (low + high) // 2
        if all(s[:mid] == first[:mid] for s in rest):
            low = mid
        else:
            high = mid
    return first[:low]
