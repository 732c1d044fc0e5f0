"""shared leaf (extract and evaluate): Python's builtins and the methods of plain values that
flagscan runs itself on known values, never on SGLang's objects.

One table for both evaluators: the IR interpreter (evaluate/interp/builtins.py) offers all of
it; the evaluator of the CLI registration (extract/consteval.py) offers a stated subset, what
argparse registrations compute with, so that a builtin the registration code calls and the
subset leaves out stays not static there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

# Builtins whose result is computed from known arguments by calling them.
PURE_FUNCTIONS: Mapping[str, Callable[..., Any]] = {
    "len": len, "int": int, "float": float, "str": str, "bool": bool, "abs": abs, "round": round,
    "sorted": sorted, "sum": sum, "any": any, "all": all, "min": min, "max": max, "divmod": divmod,
    "pow": pow, "ord": ord, "chr": chr, "repr": repr, "tuple": tuple, "list": list, "set": set,
    "frozenset": frozenset, "dict": dict, "range": range, "reversed": reversed, "enumerate": enumerate,
    "zip": zip, "format": format,
}

# Methods that read their value and return a new one (none mutates it).
SAFE_METHODS: Mapping[type, frozenset[str]] = {
    str: frozenset({"lower", "upper", "replace", "strip", "lstrip", "rstrip", "split", "rsplit", "join",
                    "startswith", "endswith", "format", "title", "capitalize", "count", "find", "isdigit",
                    "isnumeric", "partition", "rpartition", "splitlines", "zfill", "casefold", "removeprefix",
                    "removesuffix", "isalpha", "isalnum"}),
    dict: frozenset({"keys", "values", "items", "get", "copy"}),
    list: frozenset({"copy", "index", "count"}),
    tuple: frozenset({"index", "count"}),
    set: frozenset({"union", "intersection", "difference", "issubset", "issuperset", "copy"}),
    frozenset: frozenset({"union", "intersection", "difference", "issubset", "issuperset", "copy"}),
    type(re.match("", "")): frozenset({"group", "groups", "start", "end", "span", "groupdict"}),
    type(re.compile("")): frozenset({"search", "match", "fullmatch", "sub", "findall", "split"}),
}


def _subset(names: Iterable[str], of: Iterable[str], what: str) -> frozenset[str]:
    chosen, offered = frozenset(names), frozenset(of)
    if not chosen <= offered:
        raise ValueError(f"{what}: {sorted(chosen - offered)} not in the shared table")
    return chosen


# The CLI registration's subset (extract/consteval.py).
REGISTRATION_FUNCTIONS: frozenset[str] = _subset(
    ("list", "tuple", "set", "frozenset", "dict", "sorted", "len", "str", "int", "float", "bool", "min", "max",
     "reversed"), PURE_FUNCTIONS, "registration functions")
REGISTRATION_METHODS: Mapping[type, frozenset[str]] = {
    str: _subset(("lower", "upper", "replace", "strip", "lstrip", "rstrip", "split", "join", "startswith",
                  "endswith", "format", "title", "capitalize"), SAFE_METHODS[str], "registration str methods"),
    dict: SAFE_METHODS[dict],
    list: SAFE_METHODS[list],
    tuple: SAFE_METHODS[tuple],
}
