"""The repr reader against hand-picked reprs, random Python values, and SGLang's own log lines."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flagscan.verify.reprparse import Opaque, Record, ReprError, parse_repr, to_plain
from tests.verify.data import cases


class Algo(enum.Enum):
    NEXTN = "NEXTN"
    ONE = 1


@dataclass
class Inner:
    name: str = "x"
    sizes: list = field(default_factory=lambda: [1, 2])


@dataclass
class Outer:
    model_path: str = "/m"
    inner: Inner = field(default_factory=Inner)
    algo: Algo = Algo.NEXTN
    weights: dict = field(default_factory=lambda: {"a": (1, 2.5), 3: None})
    tags: frozenset = frozenset({"b", "a"})
    fn: object = print
    ratio: float = math.inf


def _value(text: str):
    value, end = parse_repr(text)
    assert end == len(text)
    return value


def test_dataclass_repr_with_nested_values() -> None:
    value = _value(repr(Outer()))
    assert isinstance(value, Record) and value.name == "Outer"
    plain = to_plain(value)
    assert plain["model_path"] == "/m"
    assert plain["inner"] == {"name": "x", "sizes": [1, 2]}
    assert plain["algo"] == "NEXTN"  # <Algo.NEXTN: 'NEXTN'> -> its value
    assert plain["weights"] == {"a": [1, 2.5], 3: None}
    assert plain["tags"] == ["a", "b"]
    assert plain["fn"].startswith("<built-in function print")
    assert plain["ratio"] == math.inf


@pytest.mark.parametrize("text, expected", [
    ("'it\\'s'", "it's"),
    ('"a\\nb"', "a\nb"),
    ("'x' 'y'", "xy"),
    ("-inf", -math.inf),
    ("1_000", 1000),
    ("1e-3", 0.001),
    ("()", ()),
    ("(1,)", (1,)),
    ("set()", {"__set__": []}),
    ("PosixPath('/tmp/x')", "/tmp/x"),
    ("<Algo.ONE: 1>", 1),
    ("None", None),
])
def test_scalars_and_small_forms(text, expected) -> None:
    assert _value(text) == expected


def test_nothing_is_evaluated() -> None:
    value, end = parse_repr("__import__('os').system('false')")
    assert value == "os" and end == len("__import__('os')")  # a one-argument call reads as its argument
    assert to_plain(_value("os.getcwd")) == "os.getcwd" and isinstance(_value("os.getcwd"), Opaque)


@pytest.mark.parametrize("text", ["ServerArgs(a=1, b='x", "{'a': [1, 2", "ServerArgs(a=1 b=2)", "'unterminated"])
def test_broken_text_is_an_error(text) -> None:
    with pytest.raises(ReprError):
        parse_repr(text)


_plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4),
    max_leaves=20,
)


@given(_plain)
@settings(max_examples=300, deadline=None)
def test_round_trip_of_python_reprs(value) -> None:
    assert _value(repr(value)) == value


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_sglang_log_line_reads_back_as_served(case) -> None:
    """The server_args= line SGLang logs and the /server_info body hold the same values."""
    line = next(l for l in case.text("serve.log").splitlines() if "server_args=" in l)
    value = to_plain(_value(line[line.index("server_args=") + len("server_args="):]))
    served = case.json("server_info.json")
    shared = [k for k in value if k in served]
    assert len(shared) > 200
    assert {k: value[k] for k in shared} == {k: served[k] for k in shared}
