"""An attribute that some paths set and others did not. Before, joining those paths kept the
attribute as an unknown value, so `hasattr(obj, name)` was a confident True where it is not
known, and `getattr(obj, name, default)` lost the default: a memo set on some paths
(`memo = getattr(args, "_model_config", None); if memo is not None:`) was an unknown with
no options, where it is the object set or None."""

from __future__ import annotations

from flagscan.evaluate.interp.values import Unknown
from tests.evaluate.helpers import options, run

SOURCE = '''
class Record:
    pass


class WithDefault:
    limit = None


def set_on_one_path(c):
    r = Record()
    if c is not None:
        r.memo = 5
    return r


def has(c):
    return hasattr(set_on_one_path(c), "memo")


def get_default(c):
    return getattr(set_on_one_path(c), "memo", None)


def memoised(c):
    r = set_on_one_path(c)
    memo = getattr(r, "memo", None)
    if memo is not None:
        return memo
    return 0


def set_on_both(c):
    r = Record()
    if c is not None:
        r.memo = 5
    else:
        r.memo = 6
    return hasattr(r, "memo"), getattr(r, "memo", None)


def class_default(c):
    r = WithDefault()
    if c is not None:
        r.limit = 8
    return r.limit


def plain_read(c):
    return set_on_one_path(c).memo


def written_after(c):
    r = set_on_one_path(c)
    r.memo = 7
    return hasattr(r, "memo"), r.memo


def through_loop(items):
    r = Record()
    for item in items:
        r.seen = 3
        r.count = getattr(r, "count", 0) + 1
    return getattr(r, "seen", None), getattr(r, "count", 0)


def copied(c):
    other = Record()
    other.value = set_on_one_path(c).memo
    return hasattr(other, "value")
'''


def _value(tmp_path, name, arg=None):
    value, _ = run(tmp_path / name, SOURCE, function=name, args=(Unknown("c") if arg is None else arg,))
    return value


def test_hasattr_of_an_attribute_set_on_some_paths_is_not_known(tmp_path) -> None:
    assert isinstance(_value(tmp_path, "has"), Unknown)      # was a confident True


def test_getattr_with_a_default_is_the_value_set_or_the_default(tmp_path) -> None:
    assert options(_value(tmp_path, "get_default")) == {5, None}
    assert options(_value(tmp_path, "memoised")) == {5, 0}


def test_an_attribute_set_on_every_path_is_known_to_exist(tmp_path) -> None:
    has, value = _value(tmp_path, "set_on_both")
    assert has is True and options(value) == {5, 6}


def test_a_plain_read_falls_back_to_the_class_attribute(tmp_path) -> None:
    assert options(_value(tmp_path, "class_default")) == {8, None}


def test_a_plain_read_without_a_class_attribute_stays_unknown(tmp_path) -> None:
    value = _value(tmp_path, "plain_read")
    assert isinstance(value, Unknown) and value.options is None


def test_a_write_on_every_path_makes_it_set(tmp_path) -> None:
    has, value = _value(tmp_path, "written_after")
    assert has is True and value == 7


def test_a_loop_that_may_not_run_leaves_it_partly_set(tmp_path) -> None:
    seen, count = _value(tmp_path, "through_loop", Unknown("items"))
    # any number of passes may run, each from what the one before left: not only 0 or 1
    assert isinstance(count, Unknown) and count.options is None
    # what the passes set is widened as a plain attribute's changed value is (its None or 3 too)
    assert isinstance(seen, Unknown) and seen.options is None


def test_a_value_read_from_it_and_stored_elsewhere_is_set_there(tmp_path) -> None:
    assert _value(tmp_path, "copied") is True
