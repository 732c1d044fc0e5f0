"""The one table of Python builtins and plain-value methods (flagscan/pybuiltins.py) that both
evaluators read: the IR interpreter all of it, the CLI registration's evaluator a stated subset."""

from __future__ import annotations

import pytest

from flagscan import pybuiltins
from flagscan.evaluate.interp import builtins
from flagscan.extract import consteval


def test_a_registration_subset_naming_what_the_table_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="zfill"):
        pybuiltins._subset(("lower", "zfill"), {"lower"}, "str methods")


def test_the_registration_evaluator_reads_the_shared_subset() -> None:
    assert consteval._SAFE_METHODS is pybuiltins.REGISTRATION_METHODS
    for kind, names in pybuiltins.REGISTRATION_METHODS.items():
        assert names <= pybuiltins.SAFE_METHODS[kind]
    functions = {n: f for n, f in consteval._BUILTINS.items() if callable(f)}
    assert set(functions) == set(pybuiltins.REGISTRATION_FUNCTIONS)
    assert all(functions[n] is pybuiltins.PURE_FUNCTIONS[n] for n in functions if n != "reversed")
    assert functions["reversed"]((1, 2)) == [2, 1]    # iterated into a list where it is used


def test_the_interpreter_offers_the_whole_table() -> None:
    table = builtins.table(None)
    assert set(pybuiltins.PURE_FUNCTIONS) <= set(table)
    assert builtins.method_of("a-b", "rsplit").name == "rsplit"
    assert consteval._SAFE_METHODS.get(str, frozenset()).isdisjoint({"rsplit", "zfill"})
