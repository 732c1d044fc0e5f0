"""extract: the fields of SGLang's ServerArgs record (dataclass, annotated, or assembled namespaces)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from flagscan.extract.consteval import (
    ClassRef,
    Evaluator,
    NotStatic,
    Opaque,
    Scope,
    class_statements,
)
from flagscan.extract.modules import ModuleInfo

MISSING = object()


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """`name: annotation = default` in a ServerArgs-like class body."""

    name: str
    annotation: cst.BaseExpression
    default: cst.BaseExpression | None
    module: ModuleInfo
    line: int
    owner: str


def class_fields(module: ModuleInfo, cls: cst.ClassDef) -> list[FieldDecl]:
    out = []
    for stmt in class_statements(cls):
        if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
            name = stmt.target.value
            ann = stmt.annotation.annotation
            if _is_classvar(ann):
                continue
            out.append(FieldDecl(name, ann, stmt.value, module, module.line(stmt), cls.name.value))
    return out


def _is_classvar(ann: cst.BaseExpression) -> bool:
    node = ann.value if isinstance(ann, cst.Subscript) else ann
    return isinstance(node, (cst.Name, cst.Attribute)) and module_tail(node) == "ClassVar"


def module_tail(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


def collect_fields(ev: Evaluator, module: ModuleInfo, class_name: str,
                   collectors: list[str]) -> dict[str, FieldDecl]:
    """The record's fields in declaration order.

    A class body's own annotated fields come first (up to 0.5.18 every field is
    there). From 0.5.20 the record is assembled from namespace classes passed to a
    collector call at module level (`collect_input_fields(_INPUT_NAMESPACES)`); the
    collector's name is rule data.
    """
    fields: dict[str, FieldDecl] = {}
    cls = module.classes.get(class_name)
    if cls is not None:
        for f in class_fields(module, cls):
            fields[f.name] = f
    for sources in _collector_arguments(module, collectors):
        try:
            classes = ev.eval(sources, Scope(module))
        except NotStatic:
            continue
        for ref in classes if isinstance(classes, (list, tuple)) else ():
            if not isinstance(ref, ClassRef):
                continue
            info = ev.index.module(ref.module)
            if info is None or ref.name not in info.classes:
                continue
            for f in class_fields(info, info.classes[ref.name]):
                fields.setdefault(f.name, f)
    return fields


def _collector_arguments(module: ModuleInfo, collectors: list[str]) -> list[cst.BaseExpression]:
    found: list[cst.BaseExpression] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if module_tail(node.func) in collectors and node.args:
                found.append(node.args[0].value)

    module.tree.visit(Finder())
    return found


def field_default(ev: Evaluator, decl: FieldDecl) -> Any:
    """The field's default as a plain value, MISSING, or Opaque when not static.

    `dataclasses.field(default=...)`, `field(default_factory=list)` and msgspec's
    equivalents are understood; a factory is evaluated when it is a builtin
    container or a lambda over constants.
    """
    node = decl.default
    if node is None:
        return MISSING
    scope = Scope(decl.module)
    if isinstance(node, cst.Call) and module_tail(node.func) == "field":
        kwargs = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if "default" in kwargs:
            node = kwargs["default"]
        elif "default_factory" in kwargs:
            factory = kwargs["default_factory"]
            if isinstance(factory, cst.Lambda):
                node = factory.body
            else:
                try:
                    fn = ev.eval(factory, scope)
                    if fn in (list, dict, set, tuple):
                        return fn()
                except NotStatic:
                    pass
                return Opaque(decl.module.code(factory))
        else:
            return MISSING
    try:
        return ev.value(node, scope)
    except NotStatic:
        return Opaque(decl.module.code(node))
