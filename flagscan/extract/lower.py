"""extract: lower a libcst module to the JSON IR of flagscan/facts/ir.py."""

from __future__ import annotations

from typing import Any

import libcst as cst

from flagscan.extract.modules import ModuleInfo, _absolute, _dotted

_BINOP = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.BitOr: "|", cst.BitAnd: "&", cst.BitXor: "^",
    cst.LeftShift: "<<", cst.RightShift: ">>", cst.MatrixMultiply: "@",
}
_AUGOP = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**", cst.BitOrAssign: "|",
    cst.BitAndAssign: "&", cst.BitXorAssign: "^", cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>",
}
_CMPOP = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.NotIn: "notin",
    cst.Is: "is", cst.IsNot: "isnot",
}
_UNOP = {cst.Not: "not", cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}


class Lowerer:
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info

    # -- module ---------------------------------------------------------------
    def module(self) -> dict[str, Any]:
        return {"name": self.info.name, "path": self.info.relpath,
                "body": self.block(self.info.tree.body)}

    def block(self, body) -> list[Any]:
        out: list[Any] = []
        for stmt in body:
            out.extend(self.stmt(stmt))
        return out

    def suite(self, suite: cst.BaseSuite) -> list[Any]:
        if isinstance(suite, cst.IndentedBlock):
            return self.block(suite.body)
        return self.block([suite]) if not isinstance(suite, cst.SimpleStatementSuite) else \
            [s for small in suite.body for s in self.small(small)]

    def line(self, node: cst.CSTNode) -> int:
        return self.info.line(node)

    def text(self, node: cst.CSTNode) -> str:
        """Source text on one line (conditions and messages are shown inline)."""
        text = " ".join(self.info.code(node).split())
        return text.replace("( ", "(").replace(" )", ")").replace("[ ", "[").replace(", ]", "]").replace(" ]", "]")

    # -- statements -----------------------------------------------------------
    def stmt(self, node: cst.CSTNode) -> list[Any]:
        if isinstance(node, cst.SimpleStatementLine):
            return [s for small in node.body for s in self.small(small, node)]
        line = self.line(node)
        if isinstance(node, cst.If):
            orelse: list[Any] = []
            if isinstance(node.orelse, cst.If):
                orelse = self.stmt(node.orelse)
            elif node.orelse is not None:
                orelse = self.suite(node.orelse.body)
            return [["if", line, self.expr(node.test), self.suite(node.body), orelse, self.text(node.test)]]
        if isinstance(node, cst.FunctionDef):
            return [["def", line, self.function(node)]]
        if isinstance(node, cst.ClassDef):
            return [["class", line, self.klass(node)]]
        if isinstance(node, cst.For):
            orelse = self.suite(node.orelse.body) if node.orelse else []
            return [["for", line, self.target(node.target), self.expr(node.iter), self.suite(node.body), orelse]]
        if isinstance(node, cst.While):
            return [["while", line, self.expr(node.test), self.suite(node.body)]]
        if isinstance(node, cst.Try):
            handlers = []
            for h in node.handlers:
                name = h.name.name.value if h.name and isinstance(h.name.name, cst.Name) else None
                handlers.append([self.expr(h.type) if h.type else None, name, self.suite(h.body)])
            orelse = self.suite(node.orelse.body) if node.orelse else []
            final = self.suite(node.finalbody.body) if node.finalbody else []
            return [["try", line, self.suite(node.body), handlers, orelse, final]]
        if isinstance(node, cst.With):
            items = [[self.expr(i.item), self.target(i.asname.name) if i.asname else None] for i in node.items]
            return [["with", line, items, self.suite(node.body)]]
        return [["unk", line, self.text(node)[:200]]]

    def small(self, node: cst.BaseSmallStatement, parent: cst.CSTNode | None = None) -> list[Any]:
        line = self.line(parent if parent is not None else node) or self.line(node)
        if isinstance(node, cst.Assign):
            return [["assign", line, [self.target(t.target) for t in node.targets], self.expr(node.value)]]
        if isinstance(node, cst.AnnAssign):
            if node.value is None:
                return []
            return [["assign", line, [self.target(node.target)], self.expr(node.value)]]
        if isinstance(node, cst.AugAssign):
            return [["aug", line, self.target(node.target), _AUGOP.get(type(node.operator), "?"), self.expr(node.value)]]
        if isinstance(node, cst.Expr):
            return [["expr", line, self.expr(node.value)]]
        if isinstance(node, cst.Return):
            return [["ret", line, self.expr(node.value) if node.value is not None else None]]
        if isinstance(node, cst.Raise):
            return [["raise", line, self.expr(node.exc) if node.exc is not None else None]]
        if isinstance(node, cst.Assert):
            msg = self.expr(node.msg) if node.msg is not None else None
            return [["assert", line, self.expr(node.test), msg, self.text(node.test)]]
        if isinstance(node, cst.Pass):
            return [["pass", line]]
        if isinstance(node, cst.Break):
            return [["break", line]]
        if isinstance(node, cst.Continue):
            return [["continue", line]]
        if isinstance(node, cst.Del):
            return [["del", line]]
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return [["pass", line]]
        if isinstance(node, cst.ImportFrom):
            module = _absolute(_dotted(node.module), self.info.package, len(node.relative))
            if isinstance(node.names, cst.ImportStar):
                return [["import", line, [["*", module, "*"]]]]
            names = []
            for alias in node.names:
                local = alias.asname.name.value if alias.asname else _dotted(alias.name)
                names.append([local, module, _dotted(alias.name)])
            return [["import", line, names]]
        if isinstance(node, cst.Import):
            names = []
            for alias in node.names:
                full = _dotted(alias.name)
                if alias.asname:
                    names.append([alias.asname.name.value, full, None])
                else:
                    names.append([full.split(".")[0], full.split(".")[0], None])
            return [["import", line, names]]
        return [["unk", line, self.text(node)[:200]]]

    def target(self, node: cst.BaseExpression) -> Any:
        if isinstance(node, (cst.Tuple, cst.List)):
            return ["tuple", [self.target(e.value) for e in node.elements]]
        if isinstance(node, cst.StarredElement):
            return self.target(node.value)
        return self.expr(node)

    def function(self, node: cst.FunctionDef, owner: str | None = None) -> dict[str, Any]:
        p = node.params
        params: list[Any] = []
        for param in list(p.posonly_params) + list(p.params):
            params.append([param.name.value, self.expr(param.default) if param.default else None, "pos"])
        if isinstance(p.star_arg, cst.Param):
            params.append([p.star_arg.name.value, None, "*"])
        for param in p.kwonly_params:
            params.append([param.name.value, self.expr(param.default) if param.default else None, "kw"])
        if p.star_kwarg is not None:
            params.append([p.star_kwarg.name.value, None, "**"])
        return {
            "name": node.name.value,
            "line": self.line(node),
            "params": params,
            "body": self.suite(node.body),
            "decorators": [self.expr(d.decorator) for d in node.decorators],
            "owner": owner,
        }

    def klass(self, node: cst.ClassDef) -> dict[str, Any]:
        body: list[Any] = []
        fields: list[Any] = []
        inner = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        for stmt in inner:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        ann = self.text(small.annotation.annotation)
                        if not ann.startswith("ClassVar"):
                            fields.append([small.target.value,
                                           self.expr(small.value) if small.value is not None else None])
            if isinstance(stmt, cst.FunctionDef):
                body.append(["def", self.line(stmt), self.function(stmt, node.name.value)])
            else:
                body.extend(self.stmt(stmt))
        return {
            "name": node.name.value,
            "line": self.line(node),
            "bases": [self.expr(b.value) for b in node.bases],
            "fields": fields,
            "body": body,
            "decorators": [self.expr(d.decorator) for d in node.decorators],
        }

    # -- expressions ----------------------------------------------------------
    def expr(self, node: cst.BaseExpression) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return ["unk", self.text(node)[:200]]
        try:
            return method(node)
        except Exception:  # an exotic literal: keep the text, never fail the module
            return ["unk", self.text(node)[:200]]

    def _Name(self, node: cst.Name) -> Any:
        if node.value in ("True", "False", "None"):
            return ["c", {"True": True, "False": False, "None": None}[node.value]]
        return ["n", node.value]

    def _Integer(self, node: cst.Integer) -> Any:
        return ["c", node.evaluated_value]

    def _Float(self, node: cst.Float) -> Any:
        value = node.evaluated_value
        return ["c", value] if value == value and value not in (float("inf"), float("-inf")) else ["unk", node.value]

    def _Imaginary(self, node: cst.Imaginary) -> Any:
        return ["unk", node.value]

    def _SimpleString(self, node: cst.SimpleString) -> Any:
        value = node.evaluated_value
        if isinstance(value, bytes):
            return ["unk", node.value[:200]]
        return ["c", value]

    def _ConcatenatedString(self, node: cst.ConcatenatedString) -> Any:
        left, right = self.expr(node.left), self.expr(node.right)
        return ["bin", "+", left, right]

    def _FormattedString(self, node: cst.FormattedString) -> Any:
        parts: list[Any] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
            else:
                conv = part.conversion
                if part.equal is not None:
                    parts.append(self.text(part.expression) + "=")
                    conv = conv or "r"
                parts.append(["fv", self.expr(part.expression), conv])
        return ["fstr", parts]

    def _Attribute(self, node: cst.Attribute) -> Any:
        return ["a", self.expr(node.value), node.attr.value]

    def _Call(self, node: cst.Call) -> Any:
        args: list[Any] = []
        kwargs: list[Any] = []
        for a in node.args:
            if a.keyword is not None:
                kwargs.append([a.keyword.value, self.expr(a.value)])
            elif a.star == "**":
                kwargs.append(["**", self.expr(a.value)])
            elif a.star == "*":
                args.append(["*", self.expr(a.value)])
            else:
                args.append(self.expr(a.value))
        return ["call", self.expr(node.func), args, kwargs]

    def _BinaryOperation(self, node: cst.BinaryOperation) -> Any:
        return ["bin", _BINOP.get(type(node.operator), "?"), self.expr(node.left), self.expr(node.right)]

    def _BooleanOperation(self, node: cst.BooleanOperation) -> Any:
        op = "and" if isinstance(node.operator, cst.And) else "or"
        operands: list[Any] = []
        for side in (node.left, node.right):
            lowered = self.expr(side)
            if isinstance(side, cst.BooleanOperation) and not side.lpar and lowered[1] == op:
                operands.extend(lowered[2])
            else:
                operands.append(lowered)
        return ["bool", op, operands]

    def _Comparison(self, node: cst.Comparison) -> Any:
        return ["cmp", self.expr(node.left),
                [[_CMPOP[type(c.operator)], self.expr(c.comparator)] for c in node.comparisons]]

    def _UnaryOperation(self, node: cst.UnaryOperation) -> Any:
        return ["un", _UNOP[type(node.operator)], self.expr(node.expression)]

    def _IfExp(self, node: cst.IfExp) -> Any:
        return ["ifx", self.expr(node.test), self.expr(node.body), self.expr(node.orelse)]

    def _Subscript(self, node: cst.Subscript) -> Any:
        if len(node.slice) != 1:
            return ["sub", self.expr(node.value), ["tuple", [self._slice(s.slice) for s in node.slice]]]
        return ["sub", self.expr(node.value), self._slice(node.slice[0].slice)]

    def _slice(self, s) -> Any:
        if isinstance(s, cst.Index):
            return self.expr(s.value)
        return ["slice", *(self.expr(x) if x is not None else None for x in (s.lower, s.upper, s.step))]

    def _elements(self, elements) -> list[Any]:
        out = []
        for e in elements:
            if isinstance(e, cst.StarredElement):
                out.append(["*", self.expr(e.value)])
            else:
                out.append(self.expr(e.value))
        return out

    def _List(self, node: cst.List) -> Any:
        return ["list", self._elements(node.elements)]

    def _Tuple(self, node: cst.Tuple) -> Any:
        return ["tuple", self._elements(node.elements)]

    def _Set(self, node: cst.Set) -> Any:
        return ["set", self._elements(node.elements)]

    def _Dict(self, node: cst.Dict) -> Any:
        items = []
        for e in node.elements:
            if isinstance(e, cst.StarredDictElement):
                items.append([None, self.expr(e.value)])
            else:
                items.append([self.expr(e.key), self.expr(e.value)])
        return ["dict", items]

    def _generators(self, for_in: cst.CompFor) -> list[Any]:
        gens = []
        while for_in is not None:
            gens.append([self.target(for_in.target), self.expr(for_in.iter), [self.expr(i.test) for i in for_in.ifs]])
            for_in = for_in.inner_for_in
        return gens

    def _ListComp(self, node: cst.ListComp) -> Any:
        return ["comp", "list", self.expr(node.elt), self._generators(node.for_in)]

    def _SetComp(self, node: cst.SetComp) -> Any:
        return ["comp", "set", self.expr(node.elt), self._generators(node.for_in)]

    def _GeneratorExp(self, node: cst.GeneratorExp) -> Any:
        return ["comp", "gen", self.expr(node.elt), self._generators(node.for_in)]

    def _DictComp(self, node: cst.DictComp) -> Any:
        return ["comp", "dict", [self.expr(node.key), self.expr(node.value)], self._generators(node.for_in)]

    def _Lambda(self, node: cst.Lambda) -> Any:
        params = [[p.name.value, self.expr(p.default) if p.default else None, "pos"] for p in node.params.params]
        return ["lambda", params, self.expr(node.body)]

    def _NamedExpr(self, node: cst.NamedExpr) -> Any:
        if isinstance(node.target, cst.Name):
            return ["walrus", node.target.value, self.expr(node.value)]
        return ["unk", self.text(node)]

    def _Ellipsis(self, node: cst.Ellipsis) -> Any:
        return ["c", None]

    def _Await(self, node: cst.Await) -> Any:
        return ["unk", self.text(node)[:200]]


def lower_module(info: ModuleInfo) -> dict[str, Any]:
    return Lowerer(info).module()
