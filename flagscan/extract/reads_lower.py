"""extract: lower a module to the JSON IR of flagscan/facts/ir.py with the standard `ast` parser.

Whole-tree read extraction parses hundreds of files; libcst with position
metadata lowers about 6k lines/s here, `ast` about 20 times faster, and the
IR is the same shape, so the read extractor and the gate evaluator use this
lowerer (flagscan/extract/lower.py stays the one for resolution code).

Two additions to the IR, both ignored by the interpreter and by render():
- "a", "sub" and "call" nodes carry the node's own 1-based line as a trailing
  element (a read inside a multi-line `return` is located on its own line);
- `global x, y` is lowered as ``["pass", line, "global", [names]]`` so that a
  function's writes to module globals can be told from local bindings.
`await x` is lowered as a call of the name `__await__` (the interpreter finds no
such name and yields an unknown, as for the libcst lowering's "unk"), so reads
inside awaited calls stay visible.
"""

from __future__ import annotations

import ast
from typing import Any

_BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.MatMult: "@",
}
_CMPOP = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "notin", ast.Is: "is", ast.IsNot: "isnot",
}
_UNOP = {ast.Not: "not", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}


def _dotted(module: str | None, package: str, level: int) -> str:
    module = module or ""
    if level == 0:
        return module
    parts = package.split(".")
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    return f"{base}.{module}" if module else base


class AstLowerer:
    def __init__(self, name: str, relpath: str, source: str) -> None:
        self.name = name
        self.relpath = relpath
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.package = name if relpath.endswith("__init__.py") else name.rpartition(".")[0]

    def module(self, tree: ast.Module) -> dict[str, Any]:
        return {"name": self.name, "path": self.relpath, "body": self.block(tree.body)}

    def text(self, node: ast.AST) -> str:
        """Source text on one line, normalised as flagscan/extract/lower.py does."""
        try:
            seg = self._segment(node)
        except Exception:
            seg = None
        if seg is None:
            seg = ast.unparse(node)
        text = " ".join(seg.split())
        return text.replace("( ", "(").replace(" )", ")").replace("[ ", "[").replace(", ]", "]").replace(" ]", "]")

    def _segment(self, node: ast.AST) -> str | None:
        l0, l1 = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
        c0, c1 = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        if l0 == l1:
            return self.lines[l0].encode()[c0:c1].decode("utf-8", "replace")
        first = self.lines[l0].encode()[c0:].decode("utf-8", "replace")
        last = self.lines[l1].encode()[:c1].decode("utf-8", "replace")
        return first + "".join(self.lines[l0 + 1:l1]) + last

    # -- statements ---------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> list[Any]:
        out: list[Any] = []
        for stmt in body:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, node: ast.stmt) -> list[Any]:
        line = node.lineno
        if isinstance(node, ast.If):
            return [["if", line, self.expr(node.test), self.block(node.body), self.block(node.orelse),
                     self.text(node.test)]]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [["def", self._def_line(node), self.function(node)]]
        if isinstance(node, ast.ClassDef):
            return [["class", self._def_line(node), self.klass(node)]]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            return [["for", line, self.target(node.target), self.expr(node.iter), self.block(node.body),
                     self.block(node.orelse)]]
        if isinstance(node, ast.While):
            return [["while", line, self.expr(node.test), self.block(node.body)]]
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            handlers = [[self.expr(h.type) if h.type else None, h.name, self.block(h.body)] for h in node.handlers]
            return [["try", line, self.block(node.body), handlers, self.block(node.orelse), self.block(node.finalbody)]]
        if isinstance(node, (ast.With, ast.AsyncWith)):
            items = [[self.expr(i.context_expr), self.target(i.optional_vars) if i.optional_vars else None]
                     for i in node.items]
            return [["with", line, items, self.block(node.body)]]
        if isinstance(node, ast.Assign):
            return [["assign", line, [self.target(t) for t in node.targets], self.expr(node.value)]]
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return []
            return [["assign", line, [self.target(node.target)], self.expr(node.value)]]
        if isinstance(node, ast.AugAssign):
            return [["aug", line, self.target(node.target), _BINOP.get(type(node.op), "?"), self.expr(node.value)]]
        if isinstance(node, ast.Expr):
            return [["expr", line, self.expr(node.value)]]
        if isinstance(node, ast.Return):
            return [["ret", line, self.expr(node.value) if node.value is not None else None]]
        if isinstance(node, ast.Raise):
            return [["raise", line, self.expr(node.exc) if node.exc is not None else None]]
        if isinstance(node, ast.Assert):
            msg = self.expr(node.msg) if node.msg is not None else None
            return [["assert", line, self.expr(node.test), msg, self.text(node.test)]]
        if isinstance(node, ast.Pass):
            return [["pass", line]]
        if isinstance(node, ast.Break):
            return [["break", line]]
        if isinstance(node, ast.Continue):
            return [["continue", line]]
        if isinstance(node, ast.Delete):
            return [["del", line]]
        if isinstance(node, ast.Global):
            return [["pass", line, "global", list(node.names)]]
        if isinstance(node, ast.Nonlocal):
            return [["pass", line]]
        if isinstance(node, ast.ImportFrom):
            module = _dotted(node.module, self.package, node.level)
            if any(a.name == "*" for a in node.names):
                return [["import", line, [["*", module, "*"]]]]
            return [["import", line, [[a.asname or a.name, module, a.name] for a in node.names]]]
        if isinstance(node, ast.Import):
            names = []
            for alias in node.names:
                if alias.asname:
                    names.append([alias.asname, alias.name, None])
                else:
                    head = alias.name.split(".")[0]
                    names.append([head, head, None])
            return [["import", line, names]]
        return [["unk", line, self.text(node)[:200]]]

    @staticmethod
    def _def_line(node: ast.AST) -> int:
        return node.lineno  # the `def`/`class` line, as libcst's positions give it

    def target(self, node: ast.expr) -> Any:
        if isinstance(node, (ast.Tuple, ast.List)):
            return ["tuple", [self.target(e) for e in node.elts]]
        if isinstance(node, ast.Starred):
            return self.target(node.value)
        return self.expr(node)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str | None = None) -> dict[str, Any]:
        a = node.args
        params: list[Any] = []
        positional = list(a.posonlyargs) + list(a.args)
        defaults: list[Any] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for p, d in zip(positional, defaults):
            params.append([p.arg, self.expr(d) if d is not None else None, "pos"])
        if a.vararg is not None:
            params.append([a.vararg.arg, None, "*"])
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append([p.arg, self.expr(d) if d is not None else None, "kw"])
        if a.kwarg is not None:
            params.append([a.kwarg.arg, None, "**"])
        return {"name": node.name, "line": self._def_line(node), "params": params, "body": self.block(node.body),
                "decorators": [self.expr(d) for d in node.decorator_list], "owner": owner}

    def klass(self, node: ast.ClassDef) -> dict[str, Any]:
        body: list[Any] = []
        fields: list[Any] = []
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if not self.text(stmt.annotation).startswith("ClassVar"):
                    fields.append([stmt.target.id, self.expr(stmt.value) if stmt.value is not None else None,
                                   self.expr(stmt.annotation)])
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body.append(["def", self._def_line(stmt), self.function(stmt, node.name)])
            else:
                body.extend(self.stmt(stmt))
        return {"name": node.name, "line": self._def_line(node), "bases": [self.expr(b) for b in node.bases],
                "fields": fields, "body": body, "decorators": [self.expr(d) for d in node.decorator_list]}

    # -- expressions ----------------------------------------------------------------
    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return ["unk", self.text(node)[:200]]
        try:
            return method(node)
        except Exception:  # never fail a module on one odd expression
            return ["unk", self.text(node)[:200]]

    def _Constant(self, node: ast.Constant) -> Any:
        v = node.value
        if isinstance(v, bytes) or isinstance(v, complex) or v is Ellipsis:
            return ["c", None] if v is Ellipsis else ["unk", self.text(node)[:200]]
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            return ["unk", self.text(node)]
        return ["c", v]

    def _Name(self, node: ast.Name) -> Any:
        return ["n", node.id]

    def _JoinedStr(self, node: ast.JoinedStr) -> Any:
        parts: list[Any] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
            elif isinstance(part, ast.FormattedValue):
                conv = {115: "s", 114: "r", 97: "a"}.get(part.conversion)
                parts.append(["fv", self.expr(part.value), conv])
        return ["fstr", parts]

    def _Attribute(self, node: ast.Attribute) -> Any:
        return ["a", self.expr(node.value), node.attr, node.lineno]

    def _Call(self, node: ast.Call) -> Any:
        args: list[Any] = []
        for a in node.args:
            args.append(["*", self.expr(a.value)] if isinstance(a, ast.Starred) else self.expr(a))
        kwargs = [[k.arg if k.arg is not None else "**", self.expr(k.value)] for k in node.keywords]
        return ["call", self.expr(node.func), args, kwargs, node.lineno]

    def _Await(self, node: ast.Await) -> Any:
        return ["call", ["n", "__await__"], [self.expr(node.value)], [], node.lineno]

    def _BinOp(self, node: ast.BinOp) -> Any:
        return ["bin", _BINOP.get(type(node.op), "?"), self.expr(node.left), self.expr(node.right)]

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        return ["bool", "and" if isinstance(node.op, ast.And) else "or", [self.expr(v) for v in node.values]]

    def _Compare(self, node: ast.Compare) -> Any:
        return ["cmp", self.expr(node.left), [[_CMPOP[type(o)], self.expr(c)] for o, c in zip(node.ops, node.comparators)]]

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        return ["un", _UNOP[type(node.op)], self.expr(node.operand)]

    def _IfExp(self, node: ast.IfExp) -> Any:
        return ["ifx", self.expr(node.test), self.expr(node.body), self.expr(node.orelse)]

    def _Subscript(self, node: ast.Subscript) -> Any:
        s = node.slice
        if isinstance(s, ast.Tuple) and any(isinstance(e, ast.Slice) for e in s.elts):
            index: Any = ["tuple", [self._slice(e) for e in s.elts]]
        else:
            index = self._slice(s)
        return ["sub", self.expr(node.value), index, node.lineno]

    def _slice(self, s: ast.expr) -> Any:
        if isinstance(s, ast.Slice):
            return ["slice", *(self.expr(x) if x is not None else None for x in (s.lower, s.upper, s.step))]
        return self.expr(s)

    def _elements(self, elts: list[ast.expr]) -> list[Any]:
        return [["*", self.expr(e.value)] if isinstance(e, ast.Starred) else self.expr(e) for e in elts]

    def _List(self, node: ast.List) -> Any:
        return ["list", self._elements(node.elts)]

    def _Tuple(self, node: ast.Tuple) -> Any:
        return ["tuple", self._elements(node.elts)]

    def _Set(self, node: ast.Set) -> Any:
        return ["set", self._elements(node.elts)]

    def _Dict(self, node: ast.Dict) -> Any:
        return ["dict", [[self.expr(k) if k is not None else None, self.expr(v)] for k, v in zip(node.keys, node.values)]]

    def _generators(self, gens: list[ast.comprehension]) -> list[Any]:
        return [[self.target(g.target), self.expr(g.iter), [self.expr(i) for i in g.ifs]] for g in gens]

    def _ListComp(self, node: ast.ListComp) -> Any:
        return ["comp", "list", self.expr(node.elt), self._generators(node.generators)]

    def _SetComp(self, node: ast.SetComp) -> Any:
        return ["comp", "set", self.expr(node.elt), self._generators(node.generators)]

    def _GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        return ["comp", "gen", self.expr(node.elt), self._generators(node.generators)]

    def _DictComp(self, node: ast.DictComp) -> Any:
        return ["comp", "dict", [self.expr(node.key), self.expr(node.value)], self._generators(node.generators)]

    def _Lambda(self, node: ast.Lambda) -> Any:
        a = node.args
        positional = list(a.posonlyargs) + list(a.args)
        defaults: list[Any] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        params = [[p.arg, self.expr(d) if d is not None else None, "pos"] for p, d in zip(positional, defaults)]
        return ["lambda", params, self.expr(node.body)]

    def _NamedExpr(self, node: ast.NamedExpr) -> Any:
        if isinstance(node.target, ast.Name):
            return ["walrus", node.target.id, self.expr(node.value)]
        return ["unk", self.text(node)]


def lower_source(name: str, relpath: str, source: str) -> dict[str, Any]:
    """The IR module of `source`; raises SyntaxError (or ValueError for NUL bytes) if it does not parse."""
    tree = ast.parse(source, filename=relpath)
    return AstLowerer(name, relpath, source).module(tree)
