"""Every node the lowering writes fits the named view of its kind (flagscan/facts/ir.py): the tree is
walked through the views alone, so a field the views misplace fails here."""

from __future__ import annotations

from typing import Any

from flagscan.extract.lower import LowerError, lower_source
from flagscan.facts import ir
from tests.conftest import ROOT

# flagscan's own modules and the fixture trees: Python written in many styles, lowered as SGLang's is
SOURCES = sorted((ROOT / "flagscan").rglob("*.py")) + sorted((ROOT / "fixtures" / "trees").rglob("*.py"))
LEAVES = {"unk", "opaque"}


def _fits(node: list[Any], shape: type[Any]) -> Any:
    required = len(shape._fields) - len(shape._field_defaults)
    assert len(node) - 1 >= required, (node[0], node)
    return ir.view(shape, node)


class Walk:
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def block(self, stmts: list[Any]) -> None:
        assert isinstance(stmts, list)
        for stmt in stmts:
            self.stmt(stmt)

    def function(self, fn: dict[str, Any]) -> None:
        for _name, default, _kind in fn["params"]:
            self.expr(default)
        for deco in fn.get("decorators", []):
            self.expr(deco)
        self.block(fn["body"])

    def stmt(self, stmt: list[Any]) -> None:
        kind = stmt[0]
        self.seen.add(kind)
        assert isinstance(stmt[1], int), stmt
        if kind in ("pass", "break", "continue"):
            return
        v = _fits(stmt, ir.STATEMENTS[kind])
        if isinstance(v, ir.Assign):
            for t in v.targets:
                self.expr(t)
            self.expr(v.value)
        elif isinstance(v, ir.AugAssign):
            self.expr(v.target), self.expr(v.value)
        elif isinstance(v, ir.ExprStmt | ir.Return):
            self.expr(v.value)
        elif isinstance(v, ir.Raise):
            self.expr(v.exc)
        elif isinstance(v, ir.If):
            self.expr(v.test), self.block(v.body), self.block(v.orelse)
            assert isinstance(v.test_text, str) and isinstance(v.source_text, str)
        elif isinstance(v, ir.For):
            self.expr(v.target), self.expr(v.iter), self.block(v.body), self.block(v.orelse)
        elif isinstance(v, ir.While):
            self.expr(v.test), self.block(v.body)
        elif isinstance(v, ir.Assert):
            self.expr(v.test), self.expr(v.msg)
        elif isinstance(v, ir.Try):
            self.block(v.body), self.block(v.orelse), self.block(v.finalbody)
            for type_expr, name, body in v.handlers:
                assert name is None or isinstance(name, str)
                self.expr(type_expr), self.block(body)
        elif isinstance(v, ir.With):
            for expr, target in v.items:
                self.expr(expr), self.expr(target)
            self.block(v.body)
        elif isinstance(v, ir.Def):
            self.function(v.func)
        elif isinstance(v, ir.ClassDef):
            for base in v.cls["bases"]:
                self.expr(base)
            self.block(v.cls["body"])
        elif isinstance(v, ir.Import):
            assert all(len(entry) == 3 for entry in v.names)
        elif isinstance(v, ir.Delete):
            for t in v.targets or ():
                self.expr(t)

    def starred(self, node: Any) -> None:
        self.expr(node[1] if isinstance(node, list) and node and node[0] == "*" else node)

    def expr(self, node: Any) -> None:
        if node is None:
            return
        assert isinstance(node, list) and node and isinstance(node[0], str), node
        kind = node[0]
        self.seen.add(kind)
        if kind in LEAVES:
            return
        v = _fits(node, ir.EXPRESSIONS[kind])
        if isinstance(v, ir.Name):
            assert isinstance(v.id, str)
        elif isinstance(v, ir.Attr):
            self.expr(v.value)
            assert isinstance(v.attr, str)
        elif isinstance(v, ir.Call):
            self.expr(v.func)
            for a in v.args:
                self.starred(a)
            for key, value in v.keywords:
                assert isinstance(key, str)
                self.expr(value)
        elif isinstance(v, ir.BinOp):
            self.expr(v.left), self.expr(v.right)
        elif isinstance(v, ir.BoolOp):
            assert v.op in ("and", "or")
            for x in v.values:
                self.expr(x)
        elif isinstance(v, ir.Compare):
            self.expr(v.left)
            for _op, right in v.comparisons:
                self.expr(right)
        elif isinstance(v, ir.UnaryOp):
            self.expr(v.operand)
        elif isinstance(v, ir.IfExp):
            self.expr(v.test), self.expr(v.body), self.expr(v.orelse)
        elif isinstance(v, ir.Subscript):
            self.expr(v.value), self.expr(v.item)
        elif isinstance(v, ir.Slice):
            self.expr(v.lower), self.expr(v.upper), self.expr(v.step)
        elif isinstance(v, ir.Elements):
            for x in v.elts:
                self.starred(x)
        elif isinstance(v, ir.DictExp):
            for key, value in v.items:
                self.expr(key), self.expr(value)
        elif isinstance(v, ir.FString):
            for part in v.parts:
                if not isinstance(part, str):
                    assert part[0] == "fv"
                    self.expr(part[1])
        elif isinstance(v, ir.Comprehension):
            for target, iterable, ifs in v.generators:
                self.expr(target), self.expr(iterable)
                for test in ifs:
                    self.expr(test)
            for part in (v.elt if v.kind == "dict" else [v.elt]):
                self.expr(part)
        elif isinstance(v, ir.Lambda):
            for _name, default, _kind in v.params:
                self.expr(default)
            self.expr(v.body)
        elif isinstance(v, ir.Walrus):
            self.expr(v.value)
        elif isinstance(v, ir.Yield):
            self.expr(v.value)


def test_lowered_modules_fit_the_named_views() -> None:
    walk = Walk()
    for path in SOURCES:
        try:
            module = lower_source(path.read_text(), "m", str(path), False)
        except LowerError:
            continue  # a fixture that does not parse on purpose (fixtures/trees/gates/.../broken.py)
        walk.block(module["body"])
    # the sources exercise every view
    assert not (set(ir.STATEMENTS) | set(ir.EXPRESSIONS)) - walk.seen
