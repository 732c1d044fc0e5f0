"""Bounds (flagscan's own limits) are reported as give-ups are, and do not raise under strict mode.

A recursion past three levels, a call deeper than the depth limit, a while loop past its
passes and the step budget are limits flagscan chose, not code it could not follow:
`Interpreter.bound` records the same Stop (the same "analysis stopped at ..." message the
resolve JSON, the startup "not followed" list and FS403 show) and returns an Unknown, but
FLAGSCAN_STRICT=1 does not turn it into GaveUp. A construct the interpreter does not model
still raises there.
"""

from __future__ import annotations

import pytest

from flagscan.evaluate.interp.giveup import Stop, bound, give_up
from flagscan.evaluate.interp.values import Unknown
from flagscan.strict import GaveUp
from tests.evaluate.helpers import run

RECURSION = '''
def count(n):
    return 0 if n == 0 else 1 + count(n - 1)

def main():
    return count(10)
'''

WHILE = '''
class Counter:
    def __init__(self):
        self.n = 0

def main():
    c = Counter()
    i = 0
    kept = 5
    while i < 1000:
        i += 1
        c.n += 2
    return i, c.n, kept
'''


@pytest.mark.parametrize("strict", ["1", ""])
def test_recursion_past_the_bound_is_reported_and_never_raises(tmp_path, monkeypatch, strict) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", strict)
    value, interp = run(tmp_path, RECURSION)
    assert isinstance(value, Unknown)
    assert [(s.location, s.construct, s.bound) for s in interp.stops] == [
        ("sglang/srt/mod.py:2", "recursion of sglang.srt.mod.count beyond 3 levels", True)]
    assert interp.stops[0].message() == ("analysis stopped at sglang/srt/mod.py:2: recursion of "
                                         "sglang.srt.mod.count beyond 3 levels; what it returns or writes is unknown")


@pytest.mark.parametrize("strict", ["1", ""])
def test_a_while_loop_past_its_passes_is_reported_and_never_raises(tmp_path, monkeypatch, strict) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", strict)
    value, interp = run(tmp_path, WHILE)
    assert [(s.construct, s.bound) for s in interp.stops] == [("a while loop that ran 200 passes", True)]
    # the loop goes on past the bound: what its passes change is unknown (not the 200th pass's
    # values), what they do not change is kept
    i, n, kept = value
    assert isinstance(i, Unknown) and isinstance(n, Unknown) and kept == 5


@pytest.mark.parametrize("strict", ["1", ""])
def test_the_call_depth_bound_is_reported_and_never_raises(tmp_path, monkeypatch, strict) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", strict)
    from flagscan.evaluate.interp import interpreter as interp_mod
    monkeypatch.setattr(interp_mod.Interpreter.__init__, "__kwdefaults__",
                        {**interp_mod.Interpreter.__init__.__kwdefaults__, "max_depth": 2})
    value, interp = run(tmp_path, '''
def c():
    return 3

def b():
    return c()

def main():
    return b()
''')
    assert isinstance(value, Unknown)
    assert [(s.construct, s.bound) for s in interp.stops] == [("a call of sglang.srt.mod.c deeper than 2 calls", True)]


def test_a_construct_not_modelled_still_raises_under_strict(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    with pytest.raises(GaveUp):
        run(tmp_path, '''
def main():
    return 1j
''')


def test_bound_and_give_up_record_the_same_stop(monkeypatch) -> None:
    monkeypatch.setenv("FLAGSCAN_STRICT", "")
    stops: list[Stop] = []
    a = give_up(stops, "x", "sglang/a.py:1", "y")
    b = bound(stops, "x", "sglang/a.py:1", "y")
    assert a == b and a.to_json() == b.to_json() and a.message() == b.message()
    assert (a.bound, b.bound) == (False, True)
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    assert bound(stops, "x", "sglang/a.py:1", "y").bound
    with pytest.raises(GaveUp):
        give_up(stops, "x", "sglang/a.py:1", "y")


POLL = '''
class Conn:
    def scan(self, cursor):
        return self.remote(cursor)


def keys(conn):
    cursor = 0
    seen = []
    passes = 0
    while True:
        cursor, batch = conn.scan(cursor)
        seen.append(batch)
        passes += 1
        if cursor == 0:
            break
    return cursor, passes


def wait(server):
    waited = 0
    while True:
        if server.activated:
            return waited
        waited += 1


def count():
    n = 0
    while True:
        n += 1
        if n == 3:
            break
    return n


def main(conn, server):
    return keys(conn), wait(server), count()
'''


def test_a_while_true_loop_left_on_a_test_not_known_stops_after_one_pass(tmp_path) -> None:
    # `while True:` whose pass may both leave and go on, on something not known (a cursor from a
    # server, a flag another process sets): what decides the later passes is not known either,
    # so one more pass stands for any number (before, 200 passes, each forking), and what the
    # passes change is unknown after it; a loop left on a known test still runs exactly
    value, interp = run(tmp_path, POLL, args=(Unknown("conn"), Unknown("server")))
    (cursor, passes), waited, counted = value
    assert isinstance(cursor, Unknown) and isinstance(passes, Unknown) and passes.options is None
    assert isinstance(waited, Unknown) and waited.options is None
    assert counted == 3
    assert interp.stops == []


SUBCONFIGS = '''
def deep(cfg, level):
    for attr in ("text_config", "vision_config", "llm_config"):
        sub = getattr(cfg, attr, None)
        if sub is not None:
            deep(sub, level + 1)
    return level


def walk(cfg):
    for attr in ("text_config", "vision_config"):
        sub = getattr(cfg, attr, None)
        if sub is not None:
            walk(sub)
    return "walked"


def main(cfg):
    return deep(cfg, 0), walk(cfg)
'''


def test_a_recursion_given_only_values_not_known_stops_at_its_first_level(tmp_path) -> None:
    # walk(sub) with sub unknown would ask the same three levels down, forking at each: it is cut
    # at once, a bound reported as the three-level one is; deep(sub, level + 1) is given a known
    # level, so it runs to the three-level bound as before
    value, interp = run(tmp_path, SUBCONFIGS, args=(Unknown("cfg"),))
    assert value == (0, "walked")
    constructs = sorted({s.construct for s in interp.stops})
    assert constructs == ["recursion of sglang.srt.mod.deep beyond 3 levels",
                          "recursion of sglang.srt.mod.walk on values not known"]
    assert all(s.bound for s in interp.stops)



def test_a_recursion_on_values_not_known_for_want_of_the_model_says_what_they_need(tmp_path) -> None:
    # the same walk over a config not known only because the model's config.json was not given: the
    # stop carries what those values need, so lint can ask for the model once (FS402 as info) instead
    # of a warning per place (before, a plain launch without --model-config printed two on 0.5.23);
    # what the cut call returns needs it too
    value, interp = run(tmp_path, SUBCONFIGS, args=(Unknown("cfg", {"model"}),))
    assert value == (0, "walked")
    walk = [s for s in interp.stops if "walk" in s.construct]
    assert [(s.construct, s.needs) for s in walk] == [
        ("recursion of sglang.srt.mod.walk on values not known", frozenset({"model"}))]
    assert walk[0].to_json()["needs"] == ["model"]
    _value, interp = run(tmp_path / "plain", SUBCONFIGS, args=(Unknown("cfg"),))
    assert all(s.needs == frozenset() and "needs" not in s.to_json() for s in interp.stops)

LEN_OF_MAYBE = '''
def main(cfg):
    seen = [1]
    if cfg is not None:
        seen.append(2)
    return len(seen), seen
'''


def test_the_length_of_a_list_with_elements_present_on_some_paths_is_not_known(tmp_path) -> None:
    # before, len() counted an element one branch appended as present: 2, a confident wrong answer
    value, _ = run(tmp_path, LEN_OF_MAYBE, args=(Unknown("cfg"),))
    n, seen = value
    assert isinstance(n, Unknown) and n.options == (1, 2) and len(seen) == 2
