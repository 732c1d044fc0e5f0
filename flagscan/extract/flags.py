"""extract: the flag inventory, by abstract execution of SGLang's CLI registration code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from flagscan.extract.consteval import (
    ClassRef,
    Evaluator,
    FuncRef,
    NotStatic,
    Opaque,
    Scope,
)
from flagscan.extract.errors import ExtractionError
from flagscan.extract.fields import MISSING, FieldDecl, collect_fields, field_default, module_tail
from flagscan.extract.flagbuild import build_flag
from flagscan.extract.generator import generate_field_flag
from flagscan.extract.modules import ModuleInfo, SourceIndex
from flagscan.facts.flags import Flag, Inventory, Location
from flagscan.ruledata import load


@dataclass(frozen=True, slots=True)
class ParserRef:
    """A value that stands for the argparse parser (or one of its groups)."""

    name: str = "parser"


@dataclass(slots=True)
class _Run:
    ev: Evaluator
    rules: dict[str, Any]
    fields: dict[str, FieldDecl]
    record: ClassRef
    flags: list[Flag] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def extract_inventory(index: SourceIndex, rules: dict[str, Any] | None = None) -> Inventory:
    rules = rules or load("cli")
    entry = rules["entry"]
    module = index.module(entry["module"])
    if module is None or entry["class"] not in module.classes:
        raise ExtractionError(
            f"no {entry['class']} class in {entry['module']} (is this an SGLang source tree?)"
        )
    ev = _evaluator(index, rules)
    record = ClassRef(module.name, entry["class"])
    fields = collect_fields(ev, module, entry["class"], rules["fields"]["collectors"])
    run = _Run(ev, rules, fields, record)
    _install_field_hooks(run)
    method = ev.function_node(FuncRef(module.name, entry["method"], owner=entry["class"]))
    if method is None:
        raise ExtractionError(f"no {entry['class']}.{entry['method']} in {module.relpath}")
    params = [p.name.value for p in method.params.params]
    parser_param = params[0] if params and params[0] not in ("self", "cls") else params[1]
    _walk(run, method.body, Scope(module, {parser_param: ParserRef()}), depth=0)
    allow_abbrev = _allow_abbrev(run, module)
    config = next((o for f in run.flags for o in f.options if o == "--config"), None)
    notes = tuple(dict.fromkeys(run.notes + ev.notes))
    return Inventory(tuple(run.flags), allow_abbrev=allow_abbrev, config_option=config, notes=notes)


def _evaluator(index: SourceIndex, rules: dict[str, Any]) -> Evaluator:
    primitives: dict[str, Any] = dict(rules.get("primitives", {}).get("values", {}))
    for name in rules.get("primitives", {}).get("none", []):
        primitives[name] = lambda *a, **k: None
    return Evaluator(index, primitives=primitives)


def _install_field_hooks(run: _Run) -> None:
    """`ServerArgs.x` and `_declared_default("x")` mean the field's declared default."""
    ev = run.ev
    original = ev.class_attr

    def class_attr(ref: ClassRef, attr: str) -> Any:
        if ref == run.record and attr in run.fields:
            value = field_default(ev, run.fields[attr])
            return None if value is MISSING else value
        return original(ref, attr)

    ev.class_attr = class_attr  # type: ignore[method-assign]  # this run's record answers before the evaluator's own lookup

    def default_lookup(ev_: Evaluator, ref: FuncRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if args and isinstance(args[0], str) and args[0] in run.fields:
            value = field_default(ev_, run.fields[args[0]])
            return None if value is MISSING else value
        raise NotStatic(ref.name)

    for name in run.rules["fields"]["default_lookups"]:
        ev.hooks[name] = default_lookup


# -- abstract execution of the registration function --------------------------
def _walk(run: _Run, block: cst.BaseSuite, scope: Scope, depth: int, certain: bool = True) -> None:
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    for stmt in body:
        _statement(run, stmt, scope, depth, certain)


def _statement(run: _Run, stmt: cst.CSTNode, scope: Scope, depth: int, certain: bool) -> None:
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        for small in stmt.body:
            _small(run, small, scope, depth, certain)
    elif isinstance(stmt, cst.If):
        try:
            test = run.ev.value(stmt.test, scope)
        except NotStatic:
            run.notes.append(
                f"{scope.module.relpath}:{scope.module.line(stmt)}: registration under a run-time "
                f"condition ({scope.module.code(stmt.test)}) was read as if the condition were false"
            )
            return
        if test:
            _walk(run, stmt.body, scope, depth, certain)
        elif stmt.orelse is not None:
            if isinstance(stmt.orelse, cst.If):
                _statement(run, stmt.orelse, scope, depth, certain)
            else:
                _walk(run, stmt.orelse.body, scope, depth, certain)
    elif isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name):
        try:
            items = run.ev._iterate(run.ev.eval(stmt.iter, scope), stmt.iter, scope)
        except NotStatic:
            run.notes.append(f"{scope.module.relpath}:{scope.module.line(stmt)}: loop not followed")
            return
        for item in items:
            scope.locals[stmt.target.value] = item
            _walk(run, stmt.body, scope, depth, certain)
    elif isinstance(stmt, (cst.With, cst.Try)):
        _walk(run, stmt.body, scope, depth, certain)


def _small(run: _Run, small: cst.BaseSmallStatement, scope: Scope, depth: int, certain: bool) -> None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Name):
            scope.locals[target.value] = _value_or_parser(run, small.value, scope)
        return
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return
    call = small.value
    func = call.func
    reg = run.rules["registration"]
    if isinstance(func, cst.Attribute) and func.attr.value in reg["add_argument"]:
        if isinstance(_safe_eval(run, func.value, scope), ParserRef):
            _register(run, call, scope)
            return
    if isinstance(func, cst.Attribute) and func.attr.value in ("add", "append", "extend", "update"):
        base = func.value
        if isinstance(base, cst.Name) and base.value in scope.locals:
            try:
                target = scope.locals[base.value]
                args = [run.ev.value(a.value, scope) for a in call.args]
                getattr(target, func.attr.value)(*args)
            except (NotStatic, AttributeError, TypeError):
                scope.locals[base.value] = Opaque(base.value)
        return
    if module_tail(func) in run.rules["generator"]["functions"]:
        _generate(run, call, scope)
        return
    callee = _safe_eval(run, func, scope)
    if isinstance(callee, FuncRef) and depth < reg["inline_depth"]:
        args = [_value_or_parser(run, a.value, scope) for a in call.args if a.keyword is None]
        if any(isinstance(a, ParserRef) for a in args):
            _inline(run, callee, args, depth)


def _inline(run: _Run, ref: FuncRef, args: list[Any], depth: int) -> None:
    node = run.ev.function_node(ref)
    info = run.ev.index.module(ref.module)
    if node is None or info is None:
        return
    params = [p.name.value for p in node.params.params]
    if ref.owner and params and params[0] in ("self", "cls"):
        params = params[1:]
    _walk(run, node.body, Scope(info, dict(zip(params, args))), depth + 1)


def _value_or_parser(run: _Run, node: cst.BaseExpression, scope: Scope) -> Any:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in run.rules["registration"]["group_factories"]:
            if isinstance(_safe_eval(run, node.func.value, scope), ParserRef):
                return ParserRef("group")
    return _safe_eval(run, node, scope)


def _safe_eval(run: _Run, node: cst.BaseExpression, scope: Scope) -> Any:
    try:
        return run.ev.eval(node, scope)
    except NotStatic:
        return Opaque(scope.module.code(node))


# -- one registration ----------------------------------------------------------
def _register(run: _Run, call: cst.Call, scope: Scope) -> None:
    options: list[str] = []
    kwargs: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for arg in call.args:
        if arg.keyword is None:
            value = _safe_eval(run, arg.value, scope)
            if arg.star == "*" and isinstance(value, (list, tuple)):
                options.extend(value)
            elif isinstance(value, str):
                options.append(value)
            continue
        key = arg.keyword.value
        texts[key] = scope.module.code(arg.value)
        kwargs[key] = _safe_eval(run, arg.value, scope)
    if not options:
        run.notes.append(f"{scope.module.relpath}:{scope.module.line(call)}: option strings not static")
        return
    location = Location(scope.module.relpath, scope.module.line(call))
    run.flags.append(build_flag(run.ev, run.rules, options, kwargs, texts, location))


# -- annotated fields (add_cli_args_from_dataclass) ----------------------------
def _generate(run: _Run, call: cst.Call, scope: Scope) -> None:
    arg = call.args[1].value if len(call.args) > 1 else None
    target = _safe_eval(run, arg, scope) if arg is not None else None
    # 0.5.20+ rebinds the class name to the assembled record (`X = msgspec.defstruct(...)`),
    # so the name itself is the record even when its value is not static.
    if isinstance(arg, cst.Name) and arg.value == run.record.name:
        target = run.record
    if target != run.record:
        run.notes.append(f"{scope.module.relpath}:{scope.module.line(call)}: generator over "
                         f"{scope.module.code(call.args[1].value) if len(call.args) > 1 else '?'} not followed")
        return
    _check_generator_reviewed(run, call, scope)
    generator = _safe_eval(run, call.func, scope)  # its module holds the name function it calls
    for decl in run.fields.values():
        flag = generate_field_flag(run.ev, run.rules, decl, field_default(run.ev, decl), generator)
        if flag is not None:
            run.flags.append(flag)


def generator_digest(run_ev: Evaluator, func: Any) -> tuple[str, str] | None:
    """(relpath, sha256 of the generator function's normalised source)."""
    import ast
    import hashlib

    if not isinstance(func, FuncRef):
        return None
    info = run_ev.index.module(func.module)
    if info is None:
        return None
    node = info.functions.get(func.name)
    if node is None:
        return None
    tree = ast.parse(info.code(node).strip())
    return info.relpath, hashlib.sha256(ast.unparse(tree.body[0]).encode()).hexdigest()


def _check_generator_reviewed(run: _Run, call: cst.Call, scope: Scope) -> None:
    found = generator_digest(run.ev, _safe_eval(run, call.func, scope))
    reviewed = {r["sha256"] for r in run.rules["generator"].get("reviewed", [])}
    if found is not None and found[1] not in reviewed:
        run.notes.append(f"{found[0]}: the annotated-field generator differs from every reviewed version "
                         f"(sha256 {found[1][:12]}); flags generated from fields follow the reviewed semantics")


def _allow_abbrev(run: _Run, module: ModuleInfo) -> bool:
    for name in run.rules["entry"]["parser_builders"]:
        fn = module.functions.get(name)
        if fn is None:
            continue
        found: list[bool] = []

        class Finder(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if module_tail(node.func) == "ArgumentParser":
                    value = True
                    for a in node.args:
                        if a.keyword is not None and a.keyword.value == "allow_abbrev":
                            value = not (isinstance(a.value, cst.Name) and a.value.value == "False")
                    found.append(value)  # noqa: B023 -- the visitor runs within this pass of the loop

        fn.visit(Finder())
        if found:
            return found[0]
    return True
