"""extract: lower a Python module to the JSON IR of flagscan/facts/ir.py.

Lowering reads Python's own `ast` rather than libcst: the IR needs statement
lines and condition text, which `ast` gives at a fraction of libcst's parse and
position-metadata cost (the whole-tree analyses lower hundreds of modules).
libcst stays where formatting-exact positions of flags matter (the inventory).

One lowering serves the interpreter (resolution, gate guards) and the read
extractor; the extras the read extractor uses are trailing elements or markers
the interpreter does not look at (see flagscan/facts/ir.py): the own line of
"a", "sub" and "call" nodes, the source text of `if` and `assert` tests, `global` names, and
`await x` as a call of `__await__`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from typing import Any

from flagscan.extract.match import OPAQUE, desugar_match
from flagscan.extract.names import absolute_module

_BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<",
    ast.RShift: ">>", ast.MatMult: "@",
}
_CMPOP = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "notin", ast.Is: "is", ast.IsNot: "isnot",
}
_UNOP = {ast.Not: "not", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}


class LowerError(Exception):
    """The module does not parse."""


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every parsed node
        return "<expr>"


def _source_text(lines: list[str], node: ast.expr) -> str:
    """The node's source text as written, on one line (whitespace runs collapsed)."""
    try:
        if node.end_lineno is None:  # not for a parsed node: Python gives every one its end
            raise ValueError("no end position")
        l0, l1 = node.lineno - 1, node.end_lineno - 1
        c0, c1 = node.col_offset, node.end_col_offset
        if l0 == l1:
            seg = lines[l0].encode()[c0:c1].decode("utf-8", "replace")
        else:
            first = lines[l0].encode()[c0:].decode("utf-8", "replace")
            last = lines[l1].encode()[:c1].decode("utf-8", "replace")
            seg = first + "".join(lines[l0 + 1:l1]) + last
    except Exception:
        seg = _text(node)
    text = " ".join(seg.split())
    return text.replace("( ", "(").replace(" )", ")").replace("[ ", "[").replace(", ]", "]").replace(" ]", "]")



class Lowerer:
    def __init__(self, name: str, path: str, is_package: bool, source: str = "") -> None:
        self.name = name
        self.path = path
        self.package = name if is_package else name.rpartition(".")[0]
        self.lines = source.splitlines(keepends=True)

    def _mentions_yield(self, node: ast.stmt) -> bool:
        """Whether the word `yield` is in the node's source lines: a cheap test that lets
        `_is_generator`'s walk run only where a yield can be (most functions have none)."""
        first, last = node.lineno - 1, node.end_lineno or node.lineno
        return not self.lines or any("yield" in line for line in self.lines[first:last])

    def module(self, tree: ast.Module) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "body": self.block(tree.body)}

    def block(self, body: list[ast.stmt]) -> list[Any]:
        out: list[Any] = []
        for stmt in body:
            out.extend(self.stmt(stmt))
        return out

    # -- statements -------------------------------------------------------------
    def stmt(self, node: ast.stmt) -> list[Any]:
        line = node.lineno
        if isinstance(node, ast.If):
            return [["if", line, self.expr(node.test), self.block(node.body), self.block(node.orelse), _text(node.test),
                     _source_text(self.lines, node.test)]]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [["def", line, self.function(node)]]
        if isinstance(node, ast.ClassDef):
            return [["class", line, self.klass(node)]]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            return [["for", line, self.target(node.target), self.expr(node.iter), self.block(node.body),
                     self.block(node.orelse)]]
        if isinstance(node, ast.While):
            return [["while", line, self.expr(node.test), self.block(node.body)]]
        if isinstance(node, ast.Try) or (sys.version_info >= (3, 11) and isinstance(node, ast.TryStar)):
            handlers = [[self.expr(h.type) if h.type is not None else None, h.name, self.block(h.body)]
                        for h in node.handlers]
            return [["try", line, self.block(node.body), handlers, self.block(node.orelse), self.block(node.finalbody)]]
        if isinstance(node, ast.Match):
            return self.block(desugar_match(node))   # the `if` chain it runs (flagscan/extract/match.py)
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
            return [["assert", line, self.expr(node.test), msg, _text(node.test), _source_text(self.lines, node.test)]]
        if isinstance(node, ast.Pass):
            return [["pass", line]]
        if isinstance(node, ast.Break):
            return [["break", line]]
        if isinstance(node, ast.Continue):
            return [["continue", line]]
        if isinstance(node, ast.Delete):
            return [["del", line, [self.target(t) for t in node.targets]]]
        if isinstance(node, ast.Global):
            return [["pass", line, "global", list(node.names)]]
        if isinstance(node, ast.Nonlocal):
            return [["pass", line]]
        if isinstance(node, ast.ImportFrom):
            module = absolute_module(node.module or "", self.package, node.level or 0)
            if any(a.name == "*" for a in node.names):
                return [["import", line, [["*", module, "*"]]]]
            return [["import", line, [[a.asname or a.name, module, a.name] for a in node.names]]]
        if isinstance(node, ast.Import):
            names = []
            for a in node.names:
                if a.asname:
                    names.append([a.asname, a.name, None])
                else:
                    # `import a.b.c` binds `a` and runs a.b.c (often just for its
                    # registrations): the full name is kept for the interpreter.
                    head = a.name.split(".")[0]
                    names.append([head, a.name, None])
            return [["import", line, names]]
        return [["unk", line, _text(node)[:200]]]

    def target(self, node: ast.expr) -> Any:
        if isinstance(node, (ast.Tuple, ast.List)):
            # a starred element (`*rest, a, b = shape`) takes what the others leave, as a list
            return ["tuple", [["*", self.target(e.value)] if isinstance(e, ast.Starred) else self.target(e)
                              for e in node.elts]]
        if isinstance(node, ast.Starred):
            return self.target(node.value)
        return self.expr(node)

    def _params(self, args: ast.arguments) -> list[Any]:
        params: list[Any] = []
        positional = list(args.posonlyargs) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for a, d in zip(positional, defaults):
            params.append([a.arg, self.expr(d) if d is not None else None, "pos"])
        if args.vararg is not None:
            params.append([args.vararg.arg, None, "*"])
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            params.append([a.arg, self.expr(d) if d is not None else None, "kw"])
        if args.kwarg is not None:
            params.append([args.kwarg.arg, None, "**"])
        return params

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": node.name,
            "line": node.lineno,
            "params": self._params(node.args),
            "body": self.block(node.body),
            "decorators": [self.expr(d) for d in node.decorator_list],
            "owner": owner,
        }
        if self._mentions_yield(node) and _is_generator(node):
            out["generator"] = True
        return out

    def klass(self, node: ast.ClassDef) -> dict[str, Any]:
        body: list[Any] = []
        fields: list[Any] = []
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if not _text(stmt.annotation).startswith("ClassVar"):
                    fields.append([stmt.target.id, self.expr(stmt.value) if stmt.value is not None else None,
                                   self.expr(stmt.annotation)])
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body.append(["def", stmt.lineno, self.function(stmt, node.name)])
            else:
                body.extend(self.stmt(stmt))
        return {
            "name": node.name,
            "line": node.lineno,
            "bases": [self.expr(b) for b in node.bases],
            "fields": fields,
            "body": body,
            "decorators": [self.expr(d) for d in node.decorator_list],
        }

    # -- expressions --------------------------------------------------------------
    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return ["unk", _text(node)[:200]]
        try:
            return method(node)
        except Exception:  # never fail a module on one odd expression
            return ["unk", _text(node)[:200]]

    def _Constant(self, node: ast.Constant) -> Any:
        value = node.value
        if value is Ellipsis:
            return ["c", None]
        if isinstance(value, (bytes, complex)):
            return ["unk", _text(node)[:200]]
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return ["unk", _text(node)]
        return ["c", value]

    def _Name(self, node: ast.Name) -> Any:
        return ["n", node.id]

    def _Attribute(self, node: ast.Attribute) -> Any:
        return ["a", self.expr(node.value), node.attr, node.lineno]

    def _Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id == OPAQUE and node.args \
                and isinstance(node.args[0], ast.Constant):
            return ["opaque", node.args[0].value]   # a match pattern not spelled out
        args = [["*", self.expr(a.value)] if isinstance(a, ast.Starred) else self.expr(a) for a in node.args]
        kwargs = [[k.arg if k.arg is not None else "**", self.expr(k.value)] for k in node.keywords]
        return ["call", self.expr(node.func), args, kwargs, node.lineno]

    def _Await(self, node: ast.Await) -> Any:
        return ["call", ["n", "__await__"], [self.expr(node.value)], [], node.lineno]

    def _BinOp(self, node: ast.BinOp) -> Any:
        return ["bin", _BINOP.get(type(node.op), "?"), self.expr(node.left), self.expr(node.right)]

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        return ["bool", "and" if isinstance(node.op, ast.And) else "or", [self.expr(v) for v in node.values]]

    def _Compare(self, node: ast.Compare) -> Any:
        return ["cmp", self.expr(node.left),
                [[_CMPOP[type(op)], self.expr(c)] for op, c in zip(node.ops, node.comparators)]]

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        return ["un", _UNOP[type(node.op)], self.expr(node.operand)]

    def _IfExp(self, node: ast.IfExp) -> Any:
        return ["ifx", self.expr(node.test), self.expr(node.body), self.expr(node.orelse)]

    def _Subscript(self, node: ast.Subscript) -> Any:
        return ["sub", self.expr(node.value), self._index(node.slice), node.lineno]

    def _index(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            return ["slice", *(self.expr(x) if x is not None else None for x in (node.lower, node.upper, node.step))]
        if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
            return ["tuple", [self._index(e) for e in node.elts]]
        return self.expr(node)

    def _elements(self, elts: Sequence[ast.expr]) -> list[Any]:
        return [["*", self.expr(e.value)] if isinstance(e, ast.Starred) else self.expr(e) for e in elts]

    def _List(self, node: ast.List) -> Any:
        return ["list", self._elements(node.elts)]

    def _Tuple(self, node: ast.Tuple) -> Any:
        return ["tuple", self._elements(node.elts)]

    def _Set(self, node: ast.Set) -> Any:
        return ["set", self._elements(node.elts)]

    def _Dict(self, node: ast.Dict) -> Any:
        return ["dict", [[self.expr(k) if k is not None else None, self.expr(v)] for k, v in zip(node.keys, node.values)]]

    def _JoinedStr(self, node: ast.JoinedStr) -> Any:
        parts: list[Any] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                conv = {115: "s", 114: "r", 97: "a"}.get(value.conversion)
                parts.append(["fv", self.expr(value.value), conv])
        return ["fstr", parts]

    def _generators(self, gens: Sequence[ast.comprehension]) -> list[Any]:
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
        return ["lambda", self._params(node.args), self.expr(node.body)]

    def _NamedExpr(self, node: ast.NamedExpr) -> Any:
        return ["walrus", node.target.id, self.expr(node.value)]

    def _Yield(self, node: ast.Yield) -> Any:
        return ["yield", self.expr(node.value) if node.value is not None else None, node.lineno]


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function's own body (not a nested function, lambda or class) yields."""
    pending: list[ast.AST] = list(node.body)
    while pending:
        item = pending.pop()
        if isinstance(item, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        pending.extend(ast.iter_child_nodes(item))
    return False


def lower_source(source: str, name: str, path: str, is_package: bool) -> dict[str, Any]:
    """The IR module of `source`; LowerError (the parser's exception as its cause) if it does not parse."""
    try:
        tree = ast.parse(source)
        return Lowerer(name, path, is_package, source).module(tree)
    except (SyntaxError, ValueError, RecursionError) as exc:
        raise LowerError(f"{path}: {type(exc).__name__}: {exc}") from exc
