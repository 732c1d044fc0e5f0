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

from flagscan.facts import ir
from flagscan.facts.ir import view
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
        read = view(ir.Marked, n)
        return read.text or ".".join(read.chain)
    if k == "c":
        return repr(view(ir.Const, n).value)
    if k == "n":
        return str(view(ir.Name, n).id)
    if k == "a":
        a = view(ir.Attr, n)
        return f"{_r(a.value)}.{a.attr}"
    if k == "call":
        call = view(ir.Call, n)
        args = [("*" + _r(a[1])) if isinstance(a, list) and a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list)
                else _r(a) for a in call.args]
        args += [(f"**{_r(v)}" if key == "**" else f"{key}={_r(v)}") for key, v in call.keywords]
        if call.func == ["n", "__await__"]:   # how the lowering spells `await x`
            return f"await {args[0]}"
        return f"{_r(call.func)}({', '.join(args)})"
    if k == "bin":
        op, left, right = view(ir.BinOp, n)
        return f"{_r(left)} {op} {_r(right)}"
    if k == "bool":
        op, values = view(ir.BoolOp, n)
        return f" {op} ".join(_paren(x) for x in values)
    if k == "cmp":
        left, comparisons = view(ir.Compare, n)
        return _r(left) + "".join(f" {_CMPTXT.get(op, op)} {_r(r)}" for op, r in comparisons)
    if k == "un":
        op, operand = view(ir.UnaryOp, n)
        return f"not {_paren(operand)}" if op == "not" else f"{op}{_paren(operand)}"
    if k == "ifx":
        test, body, orelse = view(ir.IfExp, n)
        return f"{_r(body)} if {_r(test)} else {_r(orelse)}"
    if k == "sub":
        sub = view(ir.Subscript, n)
        return f"{_r(sub.value)}[{_r(sub.item)}]"
    if k == "slice":
        lower, upper, step = view(ir.Slice, n)
        text = f"{'' if lower is None else _r(lower)}:{'' if upper is None else _r(upper)}"
        return text if step is None else f"{text}:{_r(step)}"
    if k in ("list", "tuple", "set"):
        inner = ", ".join(_r(e) for e in view(ir.Elements, n).elts)
        return {"list": f"[{inner}]", "tuple": f"({inner})", "set": f"{{{inner}}}"}[k]
    if k == "dict":
        return "{" + ", ".join(f"**{_r(v)}" if key is None else f"{_r(key)}: {_r(v)}"
                               for key, v in view(ir.DictExp, n).items) + "}"
    if k == "fstr":
        return 'f"' + "".join(p if isinstance(p, str) else "{" + _r(p[1]) + "}" for p in view(ir.FString, n).parts) + '"'
    if k == "unk":
        return str(view(ir.UnmodelledExpr, n).text)
    if k == "comp":
        kind, elt, _generators = view(ir.Comprehension, n)
        return f"[{_r(elt) if kind != 'dict' else ''} for ...]"
    if k == "lambda":
        return f"lambda: {_r(view(ir.Lambda, n).body)}"
    if k == "walrus":
        name, value = view(ir.Walrus, n)
        return f"({name} := {_r(value)})"
    if k == "*":
        return "*" + _r(n[1])   # ["*", expr]
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
