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
