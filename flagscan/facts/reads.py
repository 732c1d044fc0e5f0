"""facts: runtime reads of settings, their influence guards, call sites and global mirrors (no I/O).

A `Read` is one place outside argument resolution where runtime code fetches a
resolved setting; its `guards` are the conditions under which that place runs
(enclosing tests with polarity, short-circuit operands, earlier guarded
returns/raises, module-level `if`s). Guard tests are IR expressions (see
flagscan/facts/ir.py) in which every read of a setting is replaced by
``["read", dest_chain]`` so that the evaluator can give it the setting's value.
Lines are 1-based; paths are relative to the parent of the `sglang` package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flagscan.facts import ir
from flagscan.facts.ir import view


@dataclass(frozen=True, slots=True)
class Guard:
    """One condition a place depends on.

    kind: if | elif | else | while | ternary | and | or | return | raise | except | comprehension.
    `polarity` True means the test must hold, False that it must fail. `scope`
    is the qualified name of the function whose locals the test sees ("" for
    module level, where only the module's globals are seen).
    """

    kind: str
    test: Any
    text: str
    polarity: bool
    line: int
    scope: str = ""

    def to_json(self) -> list[Any]:
        return [self.kind, self.test, self.text, self.polarity, self.line, self.scope]

    @classmethod
    def from_json(cls, data: list[Any]) -> Guard:
        return cls(data[0], data[1], data[2], data[3], data[4], data[5])

    @property
    def shown(self) -> str:
        """The condition as the source says it, negated when it must fail."""
        return self.text if self.polarity else f"not ({self.text})"


@dataclass(frozen=True, slots=True)
class Read:
    """A read of a setting. `chain` is the attribute path after the ServerArgs
    expression (``["comm", "flashinfer_allreduce_fusion_backend"]`` for a
    namespaced view); the dest is decided against a revision's inventory."""

    chain: tuple[str, ...]
    namespaced: bool
    idiom: str
    path: str
    line: int
    function: str          # qualified name inside the module ("" at module level)
    guards: tuple[Guard, ...]
    via: str = ""          # a local the value went through (`x = server_args.y; if x: ...`)

    def dest(self, dests: frozenset[str] | set[str]) -> str | None:
        if not self.namespaced:
            return self.chain[0] if len(self.chain) == 1 and self.chain[0] in dests else None
        for i, name in enumerate(self.chain):
            if name in dests:
                return name if i == len(self.chain) - 1 else None
        return None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def key(self, dest: str) -> str:
        """Line-independent identity, for diffing two revisions' gates."""
        return "read|" + dest + "|" + self.path + "|" + self.function + "|" + " && ".join(g.shown for g in self.guards)

    def to_json(self, table: GuardTable) -> list[Any]:
        return [list(self.chain), self.namespaced, self.idiom, self.line, self.function,
                table.refs(self.guards), self.via]

    @classmethod
    def from_json(cls, data: list[Any], path: str, guards: list[Guard]) -> Read:
        return cls(tuple(data[0]), data[1], data[2], path, data[3], data[4],
                   tuple(guards[i] for i in data[5]), data[6])


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call (or a non-call reference, kind "ref") of a module-level function."""

    callee: str            # dotted: sglang.srt.layers.communicator.apply_flashinfer_allreduce_fusion
    kind: str              # call | ref
    path: str
    line: int
    function: str
    guards: tuple[Guard, ...]

    def to_json(self, table: GuardTable) -> list[Any]:
        return [self.callee, self.kind, self.line, self.function, table.refs(self.guards)]

    @classmethod
    def from_json(cls, data: list[Any], path: str, guards: list[Guard]) -> CallSite:
        return cls(data[0], data[1], path, data[2], data[3], tuple(guards[i] for i in data[4]))


@dataclass(frozen=True, slots=True)
class Mirror:
    """A module global that a function sets from a setting (``global _FLAG; _FLAG = server_args.x``)."""

    name: str
    chain: tuple[str, ...]
    namespaced: bool
    negate: bool
    line: int

    def to_json(self) -> list[Any]:
        return [self.name, list(self.chain), self.namespaced, self.negate, self.line]

    @classmethod
    def from_json(cls, data: list[Any]) -> Mirror:
        return cls(data[0], tuple(data[1]), data[2], data[3], data[4])


@dataclass(frozen=True, slots=True)
class Write:
    """A write of a setting in resolution code and the settings its guard or value reads."""

    target: str
    sources: tuple[str, ...]
    line: int
    function: str
    guards: tuple[str, ...]
    value: str

    def to_json(self) -> list[Any]:
        return [self.target, list(self.sources), self.line, self.function, list(self.guards), self.value]

    @classmethod
    def from_json(cls, data: list[Any]) -> Write:
        return cls(data[0], tuple(data[1]), data[2], data[3], tuple(data[4]), data[5])


@dataclass(slots=True)
class FileFacts:
    """Everything extracted from one file; cached per file content hash."""

    module: str
    path: str
    reads: list[Read] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    mirrors: list[Mirror] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    # function qualname -> names bound in it (parameters and assignments), for scoping
    scopes: dict[str, list[str]] = field(default_factory=dict)
    # module globals that some function rebinds (`global x; x = ...`): their
    # module-level value is not what runtime code sees
    rebound: list[str] = field(default_factory=list)
    error: str | None = None

    def to_json(self, callees: set[str] | None = None) -> dict[str, Any]:
        """JSON with guards stored once (reads and calls in one block share them);
        `callees` keeps only call sites of functions whose simple name is in it."""
        table = GuardTable()
        calls = self.calls if callees is None else [c for c in self.calls if c.callee.rpartition(".")[2] in callees]
        reads = [r.to_json(table) for r in self.reads]
        sites = [c.to_json(table) for c in calls]
        return {"module": self.module, "path": self.path, "guards": table.rows, "reads": reads, "calls": sites,
                "mirrors": [m.to_json() for m in self.mirrors], "writes": [w.to_json() for w in self.writes],
                "scopes": self.scopes, "rebound": self.rebound, "error": self.error}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileFacts:
        path = data["path"]
        guards = [Guard.from_json(g) for g in data["guards"]]
        return cls(data["module"], path, [Read.from_json(r, path, guards) for r in data["reads"]],
                   [CallSite.from_json(c, path, guards) for c in data["calls"]],
                   [Mirror.from_json(m) for m in data["mirrors"]],
                   [Write.from_json(w) for w in data["writes"]], data["scopes"], data["rebound"], data["error"])


class GuardTable:
    """Guards numbered by identity: the walker shares one Guard object between
    every place under the same condition, so each is serialised once."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self._index: dict[int, int] = {}
        self._keep: list[Guard] = []

    def refs(self, guards: tuple[Guard, ...]) -> list[int]:
        out = []
        for g in guards:
            i = self._index.get(id(g))
            if i is None:
                i = self._index[id(g)] = len(self.rows)
                self.rows.append(g.to_json())
                self._keep.append(g)  # ids stay valid while the table lives
            out.append(i)
        return out


def transform(node: Any, fn: Callable[[Any], Any]) -> Any:
    """Rebuild an IR expression bottom-up; `fn(node)` returns a replacement, or None to descend."""
    if not isinstance(node, list) or not node or not isinstance(node[0], str):
        return node
    new = fn(node)
    if new is not None:
        return new
    k = node[0]

    def t(x: Any) -> Any:
        return transform(x, fn)

    if k in ("c", "n", "unk", "read"):
        return node
    if k == "a":
        a = view(ir.Attr, node)
        return ["a", t(a.value), *node[2:]]
    if k == "call":
        call = view(ir.Call, node)
        args = [["*", t(a[1])] if isinstance(a, list) and a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list)
                else t(a) for a in call.args]
        return ["call", t(call.func), args, [[key, t(v)] for key, v in call.keywords], *node[4:]]
    if k == "bin":
        op, left, right = view(ir.BinOp, node)
        return ["bin", op, t(left), t(right)]
    if k == "bool":
        op, values = view(ir.BoolOp, node)
        return ["bool", op, [t(x) for x in values]]
    if k == "cmp":
        left, comparisons = view(ir.Compare, node)
        return ["cmp", t(left), [[op, t(r)] for op, r in comparisons]]
    if k == "un":
        op, operand = view(ir.UnaryOp, node)
        return ["un", op, t(operand)]
    if k == "ifx":
        test, body, orelse = view(ir.IfExp, node)
        return ["ifx", t(test), t(body), t(orelse)]
    if k == "sub":
        sub = view(ir.Subscript, node)
        return ["sub", t(sub.value), t(sub.item), *node[3:]]
    if k == "slice":
        return ["slice", *(t(p) if p is not None else None for p in view(ir.Slice, node))]
    if k in ("list", "tuple", "set"):
        return [k, [t(e) for e in view(ir.Elements, node).elts]]
    if k == "*":
        return ["*", t(node[1])]   # ["*", expr]
    if k == "dict":
        return ["dict", [[t(key) if key is not None else None, t(v)] for key, v in view(ir.DictExp, node).items]]
    if k == "fstr":
        return ["fstr", [p if isinstance(p, str) else ["fv", t(p[1]), p[2]] for p in view(ir.FString, node).parts]]
    if k == "walrus":
        name, value = view(ir.Walrus, node)
        return ["walrus", name, t(value)]
    if k == "lambda":
        params, body = view(ir.Lambda, node)
        return ["lambda", params, t(body)]
    if k == "comp":
        kind, elt, generators = view(ir.Comprehension, node)
        new_elt = [t(elt[0]), t(elt[1])] if kind == "dict" else t(elt)
        return ["comp", kind, new_elt, [[target, t(it), [t(c) for c in ifs]] for target, it, ifs in generators]]
    return node


def reads_in(node: Any) -> list[list[Any]]:
    """The ["read", chain, namespaced, text] nodes of a marked expression."""
    out: list[list[Any]] = []

    def visit(n: Any) -> Any:
        if n[0] == "read":
            out.append(n)
            return n
        return None

    transform(node, visit)
    return out
