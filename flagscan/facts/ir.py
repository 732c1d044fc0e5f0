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
"""

from __future__ import annotations

from typing import Any

Node = list[Any]


def is_kind(node: Any, kind: str) -> bool:
    return isinstance(node, list) and bool(node) and node[0] == kind
