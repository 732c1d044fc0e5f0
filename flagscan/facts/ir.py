"""facts: the lowered form of SGLang modules that the evaluator executes (JSON lists, no I/O).

A module is lowered once per file content (flagscan/extract/lower.py) and cached
(flagscan/extract/irstore.py); the interpreter and the read extractor share it.
Nodes are JSON lists whose first element is the node kind; every statement's
second element is its 1-based line. Elements after those listed for a kind
("a", "sub" and "call" carry their own line last; "if" and "assert" the test's
source text) are
extras that readers of the listed positions ignore. The shapes:

Expressions
    ["c", value]                     constant (JSON value; tuples become ["tuple", ...])
    ["n", name]                      name
    ["a", expr, attr, line]          attribute
    ["call", func, [arg...], [[kw, expr]...], line]   arg: expr or ["*", expr]; kw "**" for **x;
                                     `await x` is ["call", ["n", "__await__"], [x], [], line]
    ["bin", op, left, right]         op: + - * / // % ** | & ^ << >>
    ["bool", "and"|"or", [expr...]]
    ["cmp", left, [[op, right]...]]  op: == != < <= > >= in notin is isnot
    ["un", "not"|"-"|"+"|"~", expr]
    ["ifx", test, body, orelse]
    ["sub", expr, index, line]       index: expr or ["slice", lo, hi, step]
    ["list"|"tuple"|"set", [elt...]] elt: expr or ["*", expr]
    ["dict", [[key|None, value]...]] key None means **value
    ["fstr", [part...]]              part: str or ["fv", expr, conversion|None]
    ["comp", "list"|"set"|"gen"|"dict", elt, [[target, iter, [if...]]...]]  dict elt: [k, v]
    ["lambda", [param...], expr]
    ["walrus", name, expr]
    ["yield", expr|None, line]       `yield x` (`yield from x` is "unk")
    ["unk", source_text]             not understood (ast.unparse text)
    ["opaque", pattern_text]         a truth not known: a `match` pattern not spelled out
                                     (flagscan/extract/match.py; `match` itself is an `if` chain)

Statements
    ["assign", line, [target...], expr]   target: ["n"...] ["a"...] ["sub"...] ["tuple", [...]]
                                          (a tuple's element may be ["*", target]: `*rest, a = x`)
    ["aug", line, target, op, expr]
    ["expr", line, expr]
    ["if", line, test, [stmt...], [stmt...], test_text, source_text]
                                          test_text: ast.unparse of the test (conditions the
                                          interpreter records); source_text: the test as written,
                                          whitespace collapsed (guard texts of read facts)
    ["for", line, target, iter, [stmt...], [stmt...]]
    ["while", line, test, [stmt...]]
    ["ret", line, expr|None]
    ["raise", line, expr|None]
    ["assert", line, test, msg|None, test_text, source_text]   texts as for "if"
    ["try", line, [stmt...], [[type_expr|None, name|None, [stmt...]]...], [stmt...], [stmt...]]
    ["with", line, [[expr, target|None]...], [stmt...]]
    ["def", line, FUNC]  ["class", line, CLASS]
    ["import", line, [[local, module, attr|None]...]]
    ["pass", line] ["break", line] ["continue", line]
    ["del", line, [target...]]            targets as for "assign"
    ["pass", line, "global", [name...]]   `global` (a function's writes to module globals)
    ["unk", line, source_text]

FUNC  = {"name", "line", "params": [[name, default|None, kind]], "body", "decorators", "owner"[, "generator"]}
        kind: "pos" | "kw" | "*" | "**"; "generator": true when the function's own body yields
CLASS = {"name", "line", "bases": [expr...], "fields": [[name, default|None, annotation]...],
         "body": [stmt...], "decorators"}   fields: annotated class-body names in order (dataclass fields)
MODULE = {"name", "path", "body": [stmt...]}

Readers use the named views below (`view(If, stmt).test`), one per kind, rather than
positions; tests/extract/test_ir_shapes.py walks lowered modules through the views alone.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

Node = list[Any]


def is_kind(node: Any, kind: str) -> bool:
    return isinstance(node, list) and bool(node) and node[0] == kind


# Named views of the shapes above: `view(If, stmt).test` instead of `stmt[2]`. A view is a
# tuple of the node's listed positions (after the kind); a trailing field with a default may
# be absent from an older lowering. Readers name the fields they use; the lowering
# (flagscan/extract/lower.py) writes lists, so that modules cache as marshal data.

# -- expressions
class Const(NamedTuple):
    value: Any


class Name(NamedTuple):
    id: str


class Attr(NamedTuple):
    value: Node
    attr: str
    line: int = 0


class Call(NamedTuple):
    func: Node
    args: list[Node]              # an argument, or ["*", expr]
    keywords: list[list[Any]]     # [name, expr]; name "**" for **expr
    line: int = 0


class BinOp(NamedTuple):
    op: str
    left: Node
    right: Node


class BoolOp(NamedTuple):
    op: str                       # "and" | "or"
    values: list[Node]


class Compare(NamedTuple):
    left: Node
    comparisons: list[list[Any]]  # [op, right]


class UnaryOp(NamedTuple):
    op: str                       # "not" | "-" | "+" | "~"
    operand: Node


class IfExp(NamedTuple):
    test: Node
    body: Node
    orelse: Node


class Subscript(NamedTuple):
    value: Node
    item: Node                    # the index: an expression, or ["slice", lo, hi, step]
    line: int = 0


class Slice(NamedTuple):
    """["slice", lo, hi, step]: only as a subscript's index, or an element of a tuple index (`x[0, :n]`)"""
    lower: Node | None
    upper: Node | None
    step: Node | None


class Elements(NamedTuple):
    """["list"|"tuple"|"set", [elt...]]"""
    elts: list[Node]              # an element, or ["*", expr]


class DictExp(NamedTuple):
    items: list[list[Any]]        # [key, value]; key None for **value


class FString(NamedTuple):
    parts: list[Any]              # a str, or ["fv", expr, conversion]


class Comprehension(NamedTuple):
    kind: str                     # "list" | "set" | "gen" | "dict"
    elt: Any                      # for "dict": [key, value]
    generators: list[list[Any]]   # [target, iter, [if...]]


class Lambda(NamedTuple):
    params: list[list[Any]]
    body: Node


class Walrus(NamedTuple):
    name: str
    value: Node


class UnmodelledExpr(NamedTuple):
    """["unk", source_text]: an expression the lowering does not spell out (`yield from x`)"""
    text: str


class Yield(NamedTuple):
    value: Node | None
    line: int = 0


class Marked(NamedTuple):
    """["read", chain, namespaced, text]: a read of a setting in a marked expression (facts/reads.py)"""
    chain: list[str]
    namespaced: bool
    text: str = ""


# -- statements
class Assign(NamedTuple):
    line: int
    targets: list[Node]
    value: Node


class AugAssign(NamedTuple):
    line: int
    target: Node
    op: str
    value: Node


class ExprStmt(NamedTuple):
    line: int
    value: Node


class If(NamedTuple):
    line: int
    test: Node
    body: list[Node]
    orelse: list[Node]
    test_text: str = ""           # ast.unparse of the test (conditions the interpreter records)
    source_text: str = ""         # the test as written (guard texts of read facts)


class For(NamedTuple):
    line: int
    target: Node
    iter: Node
    body: list[Node]
    orelse: list[Node]


class While(NamedTuple):
    line: int
    test: Node
    body: list[Node]


class Return(NamedTuple):
    line: int
    value: Node | None


class Raise(NamedTuple):
    line: int
    exc: Node | None


class Assert(NamedTuple):
    line: int
    test: Node
    msg: Node | None
    test_text: str = ""
    source_text: str = ""


class Try(NamedTuple):
    line: int
    body: list[Node]
    handlers: list[list[Any]]     # [type_expr | None, name | None, [stmt...]]
    orelse: list[Node]
    finalbody: list[Node]


class With(NamedTuple):
    line: int
    items: list[list[Any]]        # [expr, target | None]
    body: list[Node]


class Def(NamedTuple):
    line: int
    func: dict[str, Any]          # FUNC


class ClassDef(NamedTuple):
    line: int
    cls: dict[str, Any]           # CLASS


class Import(NamedTuple):
    line: int
    names: list[list[Any]]        # [local, module, attr | None]


class Delete(NamedTuple):
    line: int
    targets: list[Node] | None = None   # None: a lowering from before `del` kept its targets


class Unmodelled(NamedTuple):
    """["unk", line, source_text] (a statement) or ["unk", source_text] (an expression)"""
    line: int
    text: str = "?"


def target_nodes(node: Any) -> list[Any]:
    """The single targets of an assignment target: the elements of a tuple or list target
    (a starred one's own target), else the target itself."""
    if is_kind(node, "tuple") or is_kind(node, "list"):
        return [t for elt in node[1] for t in target_nodes(elt[1] if is_kind(elt, "*") else elt)]
    return [node]


def simple_name(node: Node) -> str:
    """The name of a name node, or the last name of an attribute node (`dataclasses.dataclass`); else ""."""
    if node[0] == "a":
        return str(view(Attr, node).attr)
    return str(view(Name, node).id) if node[0] == "n" else ""


def name_of(node: Any) -> str | None:
    """The identifier of a name node (`["n", "server_args"]`), None for any other node."""
    return str(node[1]) if is_kind(node, "n") else None


def const_str(node: Any) -> str | None:
    """The string of a string constant node, None for any other node."""
    return node[1] if is_kind(node, "c") and isinstance(node[1], str) else None


def dotted(node: Any, names: dict[str, str] | None = None) -> str | None:
    """The dotted name a name or attribute chain spells (`torch.cuda.is_available`), its first name
    replaced through `names` when given (an import's module path; a name it lacks: None)."""
    if is_kind(node, "n"):
        name = str(node[1])
        return name if names is None else names.get(name)
    if is_kind(node, "a") and len(node) > 2 and isinstance(node[2], str):
        base = dotted(node[1], names)
        return f"{base}.{node[2]}" if base else None
    return None


V = TypeVar("V", bound=tuple[Any, ...])


_FIELDS: dict[type[Any], int] = {}
_tuple_new = tuple.__new__


def view(shape: type[V], node: Node) -> V:
    """The node's listed positions as `shape`'s named fields (extras after them are ignored)."""
    n = _FIELDS.get(shape)
    if n is None:
        n = _FIELDS[shape] = len(shape._fields)  # type: ignore[attr-defined]  # a NamedTuple class
    if len(node) > n:
        # every field is given: the tuple is built without the NamedTuple's own __new__ (most of
        # what a view costs, and views are built for each node the extraction and the interpreter see)
        return _tuple_new(shape, node[1:1 + n])
    return shape(*node[1:1 + n])


# Each kind's shape, for the test that checks lowered modules against these views.
STATEMENTS: dict[str, type[Any]] = {
    "assign": Assign, "aug": AugAssign, "expr": ExprStmt, "if": If, "for": For, "while": While,
    "ret": Return, "raise": Raise, "assert": Assert, "try": Try, "with": With, "def": Def,
    "class": ClassDef, "import": Import, "del": Delete, "unk": Unmodelled,
}
EXPRESSIONS: dict[str, type[Any]] = {
    "c": Const, "n": Name, "a": Attr, "call": Call, "bin": BinOp, "bool": BoolOp, "cmp": Compare,
    "un": UnaryOp, "ifx": IfExp, "sub": Subscript, "slice": Slice, "list": Elements, "tuple": Elements, "set": Elements,
    "dict": DictExp, "fstr": FString, "comp": Comprehension, "lambda": Lambda, "walrus": Walrus,
    "yield": Yield,
}
