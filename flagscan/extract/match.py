"""extract: a `match` statement as the `if` chain it runs (lowered by flagscan/extract/lower.py).

Python tries the cases in order and runs the body of the first whose pattern matches (and
whose guard holds). So `match s:` becomes an assignment of the subject to a local and one
`if`/`else` per case, whose test is the pattern's meaning as an expression: a value pattern
is `==`, a singleton `is`, a class pattern `isinstance(...)` with `hasattr`s for its keyword
attributes, an or-pattern `or`, and a capture binds its name with `:=` inside an always-true
list (`[x := s]`). Sequence and mapping patterns and positional class sub-patterns are not
spelled out: their test is a call of OPAQUE, which the lowering turns into an "opaque" node
(a truth not known), and the names they capture are bound to such a value too. The case's
text is the test's unparsed text, so a condition reads as valid Python.

(0.5.14 models/deepseek_common/deepseek_weight_loader.py:
`match nextn_conf: case NextNEnabledConfig(nextn_layer_id=layer_id): ...`.)
"""

from __future__ import annotations

import ast
from typing import TypeVar

_Node = TypeVar("_Node", ast.expr, ast.stmt)

OPAQUE = "__flagscan_match_pattern__"   # the marker call of a pattern not spelled out


def desugar_match(node: ast.Match) -> list[ast.stmt]:
    """The assignment of the subject and the `if` chain of `node`'s cases."""
    line = node.lineno
    subject = f"__match_subject_{line}"
    assign = _at(ast.Assign(targets=[_at(ast.Name(subject, ast.Store()), line)], value=node.subject), line)
    orelse: list[ast.stmt] = []
    for case in reversed(node.cases):
        test = _pattern(case.pattern, _at(ast.Name(subject, ast.Load()), line), case.pattern.lineno)
        if case.guard is not None:
            test = _at(ast.BoolOp(ast.And(), [test, case.guard]), case.pattern.lineno)
        orelse = [_at(ast.If(test=test, body=case.body, orelse=orelse), case.pattern.lineno)]
    return [assign, *orelse]


def _pattern(pattern: ast.pattern, subject: ast.expr, line: int) -> ast.expr:
    """The test that `pattern` matches `subject`, binding its captures."""
    if isinstance(pattern, ast.MatchValue):
        return _at(ast.Compare(subject, [ast.Eq()], [pattern.value]), line)
    if isinstance(pattern, ast.MatchSingleton):
        return _at(ast.Compare(subject, [ast.Is()], [_at(ast.Constant(pattern.value), line)]), line)
    if isinstance(pattern, ast.MatchAs):
        if pattern.pattern is None and pattern.name is None:
            return _at(ast.Constant(True), line)   # `case _:`
        inner = _pattern(pattern.pattern, subject, line) if pattern.pattern is not None else None
        bind = _bind(pattern.name, subject, line) if pattern.name is not None else None
        both = [p for p in (inner, bind) if p is not None]
        return both[0] if len(both) == 1 else _at(ast.BoolOp(ast.And(), both), line)
    if isinstance(pattern, ast.MatchOr):
        return _at(ast.BoolOp(ast.Or(), [_pattern(p, subject, line) for p in pattern.patterns]), line)
    if isinstance(pattern, ast.MatchClass) and not pattern.patterns:
        parts: list[ast.expr] = [_call("isinstance", [subject, pattern.cls], line)]
        for attr, sub in zip(pattern.kwd_attrs, pattern.kwd_patterns):
            parts.append(_call("hasattr", [subject, _at(ast.Constant(attr), line)], line))
            parts.append(_pattern(sub, _at(ast.Attribute(subject, attr, ast.Load()), line), line))
        return parts[0] if len(parts) == 1 else _at(ast.BoolOp(ast.And(), parts), line)
    return _opaque(pattern, line)


def _opaque(pattern: ast.pattern, line: int) -> ast.expr:
    """A pattern not spelled out: a truth not known, and each name it captures a value not known."""
    marker = _call(OPAQUE, [_at(ast.Constant(ast.unparse(pattern)), line)], line)
    names = sorted({n for p in ast.walk(pattern) for n in _captured(p)})
    if not names:
        return marker
    binds = [_bind(n, marker, line) for n in names]
    return _at(ast.BoolOp(ast.And(), [*binds, marker]), line)


def _captured(pattern: ast.AST) -> list[str]:
    if isinstance(pattern, (ast.MatchAs, ast.MatchStar)) and pattern.name is not None:
        return [pattern.name]
    if isinstance(pattern, ast.MatchMapping) and pattern.rest is not None:
        return [pattern.rest]
    return []


def _bind(name: str, value: ast.expr, line: int) -> ast.expr:
    """`[name := value]`: binds the capture, and a one-element list is always true."""
    target = ast.Name(name, ast.Store())
    _at(target, line)
    return _at(ast.List([_at(ast.NamedExpr(target, value), line)], ast.Load()), line)


def _call(name: str, args: list[ast.expr], line: int) -> ast.expr:
    return _at(ast.Call(_at(ast.Name(name, ast.Load()), line), args, []), line)


def _at(node: _Node, line: int) -> _Node:
    """A node made here: at the case's line, without an end (its source text is its unparsed text)."""
    node.lineno, node.col_offset = line, 0
    node.end_lineno = node.end_col_offset = None
    return node
