"""evaluate: what every part of the abstract interpreter shares (three-valued truth, control exceptions, operators)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from flagscan.evaluate.interp.values import External, Maybe, Unknown


class Dead(Exception):
    """Every path through an expression raised; the statement ends here."""


class Budget(Exception):
    """The step budget of one call ran out."""


_BIN: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "|": operator.or_,
    "&": operator.and_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}
PLAIN = (str, bytes, int, float, bool, type(None), tuple, list, dict, set, frozenset)


def truth(value: Any) -> bool | None:
    """Three-valued truthiness: None when it cannot be known."""
    if isinstance(value, Unknown):
        if value.options is not None and value.options:
            ts = {truth(o) for o in value.options}
            if len(ts) == 1:
                return ts.pop()
        return value.truth
    if isinstance(value, (list, tuple, dict, set, frozenset, str)):
        # a container whose every element (dict: entry) exists on some paths only may be empty
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
        if value and items and all(isinstance(v, Maybe) for v in items):
            return None
        return len(value) > 0
    if isinstance(value, (int, float, bool)) or value is None:
        return bool(value)
    if isinstance(value, External):
        return None
    return True


def falsy_unknown(why: str, needs: frozenset[str], value: bool) -> Unknown:
    return Unknown(why, needs, truth=value)
