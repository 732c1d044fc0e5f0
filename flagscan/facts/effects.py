"""facts: guarded effects of SGLang's argument resolution (writes and rejections), with
line-independent keys so two revisions can be compared.

An `Effect` is one guarded write of a setting or one guarded rejection (raise or
failed assert). Its key is kind + target + the set of condition atoms (top-level
conjuncts of the enclosing tests, in canonical text where the record is always
spelled `args.`), so a rule that moved from `ServerArgs._handle_x` (`self.y`) into a
hook (`cfg.y` / `server_args.y`), or to another line, keeps its key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flagscan.facts import ir
from flagscan.facts.ir import Node, view

RECORD = "args"


@dataclass(frozen=True, slots=True)
class Effect:
    kind: str                    # "write" | "reject"
    target: str                  # the setting written; "" for a rejection
    conds: tuple[str, ...]       # canonical condition atoms, sorted (everything that must hold)
    value: str                   # canonical value (write) or message text (rejection)
    location: str                # "sglang/srt/server_args.py:1090"
    handler: str                 # the enclosing function
    # The atoms that identify the rule: `conds` less the negations of earlier `elif`
    # tests, so a branch inserted before it in a chain does not make it another rule.
    guard: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.target, " and ".join(self.guard))

    @property
    def condition(self) -> str:
        return " and ".join(self.conds)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target or None, "condition": self.condition,
                "value": self.value, "location": self.location, "handler": self.handler,
                "guard": " and ".join(self.guard)}


_CMP = {"notin": "not in", "isnot": "is not"}


def canon(node: Any, receivers: frozenset[str]) -> str:
    """IR expression -> canonical source text; names in `receivers` are the record (`args`)."""
    try:
        return _c(node, receivers)
    except (IndexError, TypeError, ValueError):
        return "<expr>"


def _c(n: Any, r: frozenset[str]) -> str:
    if not isinstance(n, list) or not n:
        return repr(n)
    k = n[0]
    if k == "c":
        return repr(view(ir.Const, n).value)
    if k == "n":
        name = view(ir.Name, n).id
        return RECORD if name in r else name
    if k == "a":
        a = view(ir.Attr, n)
        return f"{_c(a.value, r)}.{a.attr}"
    if k == "call":
        call = view(ir.Call, n)
        args = [("*" + _c(a[1], r)) if isinstance(a, list) and a[:1] == ["*"] else _c(a, r) for a in call.args]
        args += [(f"**{_c(v, r)}" if key == "**" else f"{key}={_c(v, r)}") for key, v in call.keywords]
        return f"{_c(call.func, r)}({', '.join(args)})"
    if k == "bin":
        op, left, right = view(ir.BinOp, n)
        return f"{_p(left, r)} {op} {_p(right, r)}"
    if k == "bool":
        op, values = view(ir.BoolOp, n)
        return f" {op} ".join(_p(x, r) for x in values)
    if k == "cmp":
        left, comparisons = view(ir.Compare, n)
        return _p(left, r) + "".join(f" {_CMP.get(op, op)} {_p(x, r)}" for op, x in comparisons)
    if k == "un":
        op, operand = view(ir.UnaryOp, n)
        return f"not {_p(operand, r)}" if op == "not" else f"{op}{_p(operand, r)}"
    if k == "ifx":
        test, body, orelse = view(ir.IfExp, n)
        return f"{_p(body, r)} if {_p(test, r)} else {_p(orelse, r)}"
    if k == "sub":
        sub = view(ir.Subscript, n)
        return f"{_c(sub.value, r)}[{_c(sub.item, r)}]"
    if k == "slice":
        lower, upper, step = view(ir.Slice, n)
        text = f"{'' if lower is None else _c(lower, r)}:{'' if upper is None else _c(upper, r)}"
        return text if step is None else f"{text}:{_c(step, r)}"
    if k in ("list", "tuple", "set"):
        inner = ", ".join(_c(e, r) for e in view(ir.Elements, n).elts)
        return {"list": f"[{inner}]", "tuple": f"({inner})", "set": f"{{{inner}}}"}[k]
    if k == "dict":
        return "{" + ", ".join(f"**{_c(v, r)}" if key is None else f"{_c(key, r)}: {_c(v, r)}"
                               for key, v in view(ir.DictExp, n).items) + "}"
    if k == "fstr":
        return 'f"' + "".join(p if isinstance(p, str) else "{" + _c(p[1], r) + "}" for p in view(ir.FString, n).parts) \
            + '"'
    if k == "*":
        return "*" + _c(n[1], r)   # ["*", expr]
    if k == "walrus":
        name, value = view(ir.Walrus, n)
        return f"({name} := {_c(value, r)})"
    if k == "unk":
        return " ".join(str(view(ir.UnmodelledExpr, n).text).split())
    return f"<{k}>"


def _p(n: Any, r: frozenset[str]) -> str:
    text = _c(n, r)
    return f"({text})" if isinstance(n, list) and n[:1] and n[0] in ("bool", "ifx", "walrus") else text


def conjuncts(node: Node, receivers: frozenset[str]) -> list[str]:
    """The top-level `and` operands of a test, each canonical (nested ifs and `a and b` agree)."""
    if isinstance(node, list) and node[:2] == ["bool", "and"]:
        return [atom for part in view(ir.BoolOp, node).values for atom in conjuncts(part, receivers)]
    try:
        return [_p(node, receivers)]   # an `or` atom keeps its parentheses once joined with `and`
    except (IndexError, TypeError, ValueError):
        return ["<expr>"]


_FLIP = {"==": "!=", "!=": "==", "is": "isnot", "isnot": "is", "in": "notin", "notin": "in"}


def negate(node: Node, receivers: frozenset[str]) -> list[str]:
    """`not test` as atoms, simplified the way people write it (`x is None` for `not x is not None`)."""
    if isinstance(node, list) and node[:2] == ["un", "not"]:
        return conjuncts(view(ir.UnaryOp, node).operand, receivers)
    if isinstance(node, list) and node[:1] == ["cmp"]:
        left, comparisons = view(ir.Compare, node)
        if len(comparisons) == 1 and comparisons[0][0] in _FLIP:
            op, right = comparisons[0]
            return [canon(["cmp", left, [[_FLIP[op], right]]], receivers)]
    return [f"not {_p(node, receivers)}"]


def message_text(node: Any, receivers: frozenset[str]) -> str:
    """A raise's message as one string: implicit concatenation flattened, f-string fields kept."""
    if isinstance(node, list) and node[:2] == ["bin", "+"]:
        _op, left, right = view(ir.BinOp, node)
        return message_text(left, receivers) + message_text(right, receivers)
    if isinstance(node, list) and node[:1] == ["c"] and isinstance(view(ir.Const, node).value, str):
        return str(view(ir.Const, node).value)
    if isinstance(node, list) and node[:1] == ["fstr"]:
        return "".join(p if isinstance(p, str) else "{" + _c(p[1], receivers) + "}"
                       for p in view(ir.FString, node).parts)
    return "{" + canon(node, receivers) + "}"
