"""A container a function is given, changed on paths the function forks, is changed for its
caller too. A path reads a container after a fork as its own copy (State.own: an append on
one side never shows on the other), so before, `def add(s, c): if c: s.append(2)` left the
caller's list as it was: a confident wrong answer (`len(seen)` was 1, where it is 1 or 2)."""

from __future__ import annotations

from flagscan.evaluate.interp.values import Unknown
from tests.evaluate.helpers import options, run

SOURCE = '''
class Holder:
    def __init__(self):
        self.items = [0]


def add(s, c):
    if c is not None:
        s.append(2)


def put(d, c):
    if c is not None:
        d["k"] = 1


def rebind(s, c):
    if c is not None:
        s = [7, 8, 9]
    return len(s)


def middle(s, c):
    add(s, c)


def lists(c):
    seen = [1]
    add(seen, c)
    return len(seen)


def dicts(c):
    d = {}
    put(d, c)
    return "k" in d


def rebound(c):
    seen = [1]
    n = rebind(seen, c)
    return len(seen), n


def two_levels(c):
    seen = [1]
    middle(seen, c)
    return len(seen)


def attribute(c):
    h = Holder()
    add(h.items, c)
    return len(h.items)


def known(c):
    seen = [1]
    add(seen, 0)
    return len(seen)
'''


def _value(tmp_path, name):
    value, _ = run(tmp_path / name, SOURCE, function=name, args=(Unknown("c"),))
    return value


def test_a_list_appended_on_one_path_of_the_callee_may_have_grown(tmp_path) -> None:
    assert options(_value(tmp_path, "lists")) == {1, 2}
    assert options(_value(tmp_path, "two_levels")) == {1, 2}     # through a function that passes it on
    assert options(_value(tmp_path, "attribute")) == {1, 2}      # held by an object's attribute


def test_a_dict_written_on_one_path_may_hold_the_key(tmp_path) -> None:
    assert isinstance(_value(tmp_path, "dicts"), Unknown)


def test_a_parameter_bound_to_another_list_leaves_the_callers_as_it_was(tmp_path) -> None:
    length, n = _value(tmp_path, "rebound")
    assert length == 1 and isinstance(n, Unknown)


def test_a_call_that_forks_nothing_still_changes_the_callers_list_in_place(tmp_path) -> None:
    assert _value(tmp_path, "known") == 2
