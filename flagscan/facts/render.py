"""facts: IR expressions (flagscan/facts/ir.py) back to Python source text, for conditions and messages.

The one renderer of the IR: the interpreter's unknowns and the read facts'
texts both come from here. A marked read (["read", chain, namespaced, text],
flagscan/facts/reads.py) shows its original text; `await x` (a call of
`__await__`) shows as written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from flagscan.strict import give_up

_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
         "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "**": 12}
_CMPTXT = {"notin": "not in", "isnot": "is not"}


def render(node: Any) -> str:
    try:
        return _r(node)
    except Exception as exc:  # a malformed node must never break a report; said in the text
        give_up(f"{type(exc).__name__}: {exc}", "rendering an expression")
        return f"<expression not rendered: {type(exc).__name__}>"


def _r(n: Any) -> str:
    if n is None:
        return "None"
    if not isinstance(n, list) or not n:
        return repr(n)
    k = n[0]
    if k == "read":
        return n[3] if len(n) > 3 else ".".join(n[1])
    if k == "c":
        return repr(n[1])
    if k == "n":
        return str(n[1])
    if k == "a":
        return f"{_r(n[1])}.{n[2]}"
    if k == "call":
        args = [("*" + _r(a[1])) if isinstance(a, list) and a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list) else _r(a) for a in n[2]]
        args += [(f"**{_r(v)}" if key == "**" else f"{key}={_r(v)}") for key, v in n[3]]
        if n[1] == ["n", "__await__"]:
            return f"await {args[0]}"
        return f"{_r(n[1])}({', '.join(args)})"
    if k == "bin":
        return f"{_r(n[2])} {n[1]} {_r(n[3])}"
    if k == "bool":
        return f" {n[1]} ".join(_paren(x) for x in n[2])
    if k == "cmp":
        return _r(n[1]) + "".join(f" {_CMPTXT.get(op, op)} {_r(r)}" for op, r in n[2])
    if k == "un":
        return f"not {_paren(n[2])}" if n[1] == "not" else f"{n[1]}{_paren(n[2])}"
    if k == "ifx":
        return f"{_r(n[2])} if {_r(n[1])} else {_r(n[3])}"
    if k == "sub":
        idx = n[2]
        if isinstance(idx, list) and idx and idx[0] == "slice":
            return f"{_r(n[1])}[{':'.join('' if p is None else _r(p) for p in idx[1:3])}]"
        return f"{_r(n[1])}[{_r(idx)}]"
    if k in ("list", "tuple", "set"):
        inner = ", ".join(_r(e) for e in n[1])
        return {"list": f"[{inner}]", "tuple": f"({inner})", "set": f"{{{inner}}}"}[k]
    if k == "dict":
        return "{" + ", ".join(f"**{_r(v)}" if key is None else f"{_r(key)}: {_r(v)}" for key, v in n[1]) + "}"
    if k == "fstr":
        return 'f"' + "".join(p if isinstance(p, str) else "{" + _r(p[1]) + "}" for p in n[1]) + '"'
    if k == "unk":
        return str(n[1])
    if k == "comp":
        return f"[{_r(n[2]) if n[1] != 'dict' else ''} for ...]"
    if k == "lambda":
        return f"lambda: {_r(n[2])}"
    if k == "walrus":
        return f"({n[1]} := {_r(n[2])})"
    if k == "*":
        return "*" + _r(n[1])
    return "<expr>"


def conjunction(parts: Iterable[str]) -> str:
    """Source texts of nested conditions (`if A or B:` containing `if D:`) as one condition,
    `(A or B) and D`: a part that binds more loosely than `and` (`or`, a conditional
    expression, a lambda) is parenthesised."""
    return " and ".join(_operand(p) for p in parts if p)


def _operand(text: str) -> str:
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        # Not Python (an interpreter note): parenthesise when it might bind loosely.
        loose = any(word in f" {text} " for word in (" or ", " if ", " lambda ", ":="))
        return f"({text})" if loose else text
    loose = isinstance(node, (ast.IfExp, ast.Lambda)) or (
        isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or))
    return f"({text})" if loose and not _wrapped(text.strip()) else text


def _wrapped(text: str) -> bool:
    """`(a or b)` already carries its parentheses (`(a) or (b)` does not)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    try:
        ast.parse(text[1:-1], mode="eval")
    except SyntaxError:
        return False
    return True


def _paren(n: Any) -> str:
    text = _r(n)
    if isinstance(n, list) and n and n[0] in ("bool", "ifx"):
        return f"({text})"
    return text
