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

from flagscan.facts.ir import Node

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
        return repr(n[1])
    if k == "n":
        return RECORD if n[1] in r else n[1]
    if k == "a":
        return f"{_c(n[1], r)}.{n[2]}"
    if k == "call":
        args = [("*" + _c(a[1], r)) if isinstance(a, list) and a[:1] == ["*"] else _c(a, r) for a in n[2]]
        args += [(f"**{_c(v, r)}" if key == "**" else f"{key}={_c(v, r)}") for key, v in n[3]]
        return f"{_c(n[1], r)}({', '.join(args)})"
    if k == "bin":
        return f"{_p(n[2], r)} {n[1]} {_p(n[3], r)}"
    if k == "bool":
        return f" {n[1]} ".join(_p(x, r) for x in n[2])
    if k == "cmp":
        return _p(n[1], r) + "".join(f" {_CMP.get(op, op)} {_p(x, r)}" for op, x in n[2])
    if k == "un":
        return f"not {_p(n[2], r)}" if n[1] == "not" else f"{n[1]}{_p(n[2], r)}"
    if k == "ifx":
        return f"{_p(n[2], r)} if {_p(n[1], r)} else {_p(n[3], r)}"
    if k == "sub":
        idx = n[2]
        if isinstance(idx, list) and idx[:1] == ["slice"]:
            return f"{_c(n[1], r)}[{':'.join('' if p is None else _c(p, r) for p in idx[1:3])}]"
        return f"{_c(n[1], r)}[{_c(idx, r)}]"
    if k in ("list", "tuple", "set"):
        inner = ", ".join(_c(e, r) for e in n[1])
        return {"list": f"[{inner}]", "tuple": f"({inner})", "set": f"{{{inner}}}"}[k]
    if k == "dict":
        return "{" + ", ".join(f"**{_c(v, r)}" if key is None else f"{_c(key, r)}: {_c(v, r)}" for key, v in n[1]) + "}"
    if k == "fstr":
        return 'f"' + "".join(p if isinstance(p, str) else "{" + _c(p[1], r) + "}" for p in n[1]) + '"'
    if k == "*":
        return "*" + _c(n[1], r)
    if k == "walrus":
        return f"({n[1]} := {_c(n[2], r)})"
    if k == "unk":
        return " ".join(str(n[1]).split())
    return f"<{k}>"


def _p(n: Any, r: frozenset[str]) -> str:
    text = _c(n, r)
    return f"({text})" if isinstance(n, list) and n[:1] and n[0] in ("bool", "ifx", "walrus") else text


def conjuncts(node: Node, receivers: frozenset[str]) -> list[str]:
    """The top-level `and` operands of a test, each canonical (nested ifs and `a and b` agree)."""
    if isinstance(node, list) and node[:2] == ["bool", "and"]:
        return [atom for part in node[2] for atom in conjuncts(part, receivers)]
    try:
        return [_p(node, receivers)]   # an `or` atom keeps its parentheses once joined with `and`
    except (IndexError, TypeError, ValueError):
        return ["<expr>"]


_FLIP = {"==": "!=", "!=": "==", "is": "isnot", "isnot": "is", "in": "notin", "notin": "in"}


def negate(node: Node, receivers: frozenset[str]) -> list[str]:
    """`not test` as atoms, simplified the way people write it (`x is None` for `not x is not None`)."""
    if isinstance(node, list) and node[:2] == ["un", "not"]:
        return conjuncts(node[2], receivers)
    if isinstance(node, list) and node[:1] == ["cmp"] and len(node[2]) == 1 and node[2][0][0] in _FLIP:
        op, right = node[2][0]
        return [canon(["cmp", node[1], [[_FLIP[op], right]]], receivers)]
    return [f"not {_p(node, receivers)}"]


def message_text(node: Any, receivers: frozenset[str]) -> str:
    """A raise's message as one string: implicit concatenation flattened, f-string fields kept."""
    if isinstance(node, list) and node[:2] == ["bin", "+"]:
        return message_text(node[2], receivers) + message_text(node[3], receivers)
    if isinstance(node, list) and node[:1] == ["c"] and isinstance(node[1], str):
        return node[1]
    if isinstance(node, list) and node[:1] == ["fstr"]:
        return "".join(p if isinstance(p, str) else "{" + _c(p[1], receivers) + "}" for p in node[1])
    return "{" + canon(node, receivers) + "}"
