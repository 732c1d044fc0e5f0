"""evaluate: the event chain's shortcuts give what walking the whole chain gives."""

from __future__ import annotations

from flagscan.evaluate.interp.state import EMPTY, Chain, Event, State, join_states, merge_chains


def _event(kind: str, n: int) -> Event:
    return Event(kind, f"f.py:{n}", "f", (), ())


def _chain(*kinds: str, start: Chain = EMPTY) -> Chain:
    chain = start
    for n, kind in enumerate(kinds):
        chain = Chain(_event(kind, n), chain)
    return chain


def test_since_is_the_slice_after_a_count_also_across_merged_chains() -> None:
    base = _chain("write", "raise", "log")
    left = _chain("write", "raise", start=base)
    right = _chain("log", start=base)
    for chain in (base, left, merge_chains([left, right])):
        events = list(chain)
        assert chain.depth == len(events)
        for count in range(len(events) + 2):
            assert chain.since(count) == events[count:]


def test_newest_is_the_last_event_of_its_kind() -> None:
    chain = _chain("raise", "write", "raise", "log")
    events = list(chain)
    assert chain.newest("raise") is events[2]
    assert chain.newest("log") is events[3]
    assert chain.newest("read") is None
    assert EMPTY.newest("raise") is None


def test_a_join_of_two_paths_keeps_shared_objects_and_joins_what_differs() -> None:
    shared, left_only = {"a": 1}, {"x": 1}
    base = State({1: shared, 2: {"v": 1}}, {"n": 1, "same": "s"})
    other = base.fork()
    base.writable(2)["v"] = 2
    base.heap[3] = left_only
    base.modified.add(3)
    other.locals["n"] = 2
    joined = join_states([base, other], "test")
    assert joined.heap[1] is shared
    assert joined.heap[3] is left_only                      # held by one path only: kept as it is
    assert joined.heap[2]["v"].options == (2, 1)            # written on one path: either value
    assert joined.locals["same"] == "s"
    assert joined.locals["n"].options == (1, 2)
    three = join_states([base, other, other.fork()], "test")
    assert three.heap[2]["v"].options == (2, 1) and three.heap[1] is shared
