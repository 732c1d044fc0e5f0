"""extract: what an argparse action does, for argparse's own actions and SGLang's custom ones."""

from __future__ import annotations

import re
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

# argparse's registry: name -> (nargs, const, default, semantics). A value of
# Ellipsis means "taken from add_argument". This is Python's argparse, not SGLang.
STANDARD: dict[str, tuple[Any, Any, Any, str]] = {
    "store": (..., ..., ..., "store"),
    "store_const": (0, ..., ..., "store_const"),
    "store_true": (0, True, False, "store_const"),
    "store_false": (0, False, True, "store_const"),
    "append": (..., ..., ..., "append"),
    "append_const": (0, ..., ..., "append_const"),
    "extend": (..., ..., ..., "append"),
    "count": (0, None, ..., "count"),
    "BooleanOptionalAction": (0, None, ..., "store_bool"),
    "help": (0, None, ..., "ignore"),
    "version": (0, None, ..., "ignore"),
}
# argparse's private action classes that custom actions subclass.
_CLASS_TO_NAME = {
    "_StoreAction": "store", "_StoreConstAction": "store_const",
    "_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
    "_AppendAction": "append", "_AppendConstAction": "append_const",
    "_ExtendAction": "extend", "_CountAction": "count",
    "BooleanOptionalAction": "BooleanOptionalAction",
}


def argparse_class(text: str) -> str | None:
    """`argparse.BooleanOptionalAction` (a class of Python's argparse) -> its registry name."""
    head, _, tail = text.rpartition(".")
    if head == "argparse" and tail in _CLASS_TO_NAME:
        return _CLASS_TO_NAME[tail]
    return None


@dataclass(frozen=True, slots=True)
class ActionFacts:
    name: str
    nargs: Any
    const: Any
    default: Any
    semantics: str
    deprecated: bool
    extra: dict[str, Any]
    stored: Any = None


def standard(name: str, kwargs: dict[str, Any]) -> ActionFacts:
    nargs, const, default, semantics = STANDARD.get(name, STANDARD["store"])
    const_value = kwargs.get("const") if const is ... else const
    return ActionFacts(
        name=name,
        nargs=kwargs.get("nargs") if nargs is ... else nargs,
        const=kwargs.get("const") if const is ... else const,
        default=kwargs.get("default") if default is ... or "default" in kwargs else default,
        semantics=semantics,
        deprecated=False,
        extra={},
        stored=const_value if semantics in ("store_const", "append_const") else None,
    )


def custom(ev: Evaluator, ref: ClassRef, kwargs: dict[str, Any], markers: list[str]) -> ActionFacts:
    """Interpret a custom `argparse.Action` subclass from its source.

    The `__init__` parameters are bound to add_argument's keywords (defaults from
    the signature), then the `super().__init__(...)` call tells nargs/const/default;
    `__call__` tells what is stored: `setattr(namespace, self.dest, True)` is a
    store of a constant, `values` a store, no setattr at all swallows the flag.
    """
    info = ev.index.module(ref.module)
    cls = info.classes.get(ref.name) if info is not None else None
    if info is None or cls is None:
        return ActionFacts(ref.name, kwargs.get("nargs"), kwargs.get("const"),
                           kwargs.get("default"), "store", _marked(ref.name, markers), {})
    methods = {s.name.value: s for s in class_statements(cls) if isinstance(s, cst.FunctionDef)}
    bound: dict[str, Any] = dict(kwargs)
    super_kwargs: dict[str, Any] = {}
    base_name = _base_action(cls)
    if "__init__" in methods:
        init = methods["__init__"]
        local: dict[str, Any] = {}
        params = init.params.params[3:]  # self, option_strings, dest
        for p in list(params) + list(init.params.kwonly_params):
            name = p.name.value
            if name in kwargs:
                local[name] = kwargs[name]
            elif p.default is not None:
                try:
                    local[name] = ev.eval(p.default, Scope(info))
                except NotStatic:
                    local[name] = Opaque(info.code(p.default))
        rest = {k: v for k, v in kwargs.items() if k not in local}
        super_kwargs = _super_call(ev, init, Scope(info, {**local, "kwargs": rest}))
        bound = {**local, **super_kwargs}
    deprecated = _marked(ref.name, markers) or _mentions(info, methods.get("__call__"), markers)
    semantics, stored_attr = _call_semantics(info, methods.get("__call__"))
    if semantics is None:
        semantics = STANDARD.get(_CLASS_TO_NAME.get(base_name, "store"), STANDARD["store"])[3]
    nargs = super_kwargs.get("nargs", bound.get("nargs"))
    if base_name in _CLASS_TO_NAME and "__init__" not in methods:
        std = standard(_CLASS_TO_NAME[base_name], kwargs)
        nargs = std.nargs
        bound.setdefault("const", std.const)
        bound.setdefault("default", std.default)
    stored = None
    if semantics == "store_const":
        if stored_attr is None:
            stored = bound.get("const")
        elif stored_attr in ("True", "False"):
            stored = stored_attr == "True"
        else:
            param = _self_assignments(methods.get("__init__")).get(stored_attr, stored_attr)
            stored = super_kwargs.get(param, bound.get(param))
    return ActionFacts(
        name=ref.name,
        nargs=nargs,
        const=super_kwargs.get("const", bound.get("const")),
        default=super_kwargs.get("default", bound.get("default")),
        semantics=semantics,
        deprecated=deprecated,
        extra={k: v for k, v in local_items(bound) if k not in super_kwargs},
        stored=stored,
    )


def local_items(bound: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in bound.items() if k != "kwargs"]


def _base_action(cls: cst.ClassDef) -> str:
    for base in cls.bases:
        node = base.value
        name = node.attr.value if isinstance(node, cst.Attribute) else getattr(node, "value", "")
        if isinstance(name, str) and name:
            return name
    return ""


def _super_call(ev: Evaluator, init: cst.FunctionDef, scope: Scope) -> dict[str, Any]:
    found: list[cst.Call] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
                if isinstance(func.value, cst.Call):
                    found.append(node)

    init.visit(Finder())
    if not found:
        return {}
    out: dict[str, Any] = {}
    for arg in found[0].args:
        if arg.star == "**":
            rest = scope.locals.get("kwargs", {})
            out.update({k: v for k, v in rest.items() if k not in out})
        elif arg.keyword is not None:
            try:
                out[arg.keyword.value] = ev.eval(arg.value, scope)
            except NotStatic:
                out[arg.keyword.value] = Opaque(scope.module.code(arg.value))
    return out


def _self_assignments(init: cst.FunctionDef | None) -> dict[str, str]:
    """`self.attr = param` in __init__: attr -> param."""
    out: dict[str, str] = {}
    if init is None:
        return out

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                if (isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name)
                        and t.target.value.value == "self" and isinstance(node.value, cst.Name)):
                    out[t.target.attr.value] = node.value.value

    init.visit(Finder())
    return out


def _call_semantics(info: ModuleInfo, call: cst.FunctionDef | None) -> tuple[str | None, str | None]:
    """(semantics, what is stored): `True`/`False`, or the `self` attribute holding it."""
    if call is None:
        return None, None
    stores: list[cst.BaseExpression] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "setattr" and len(node.args) == 3:
                stores.append(node.args[2].value)

    call.visit(Finder())
    if not stores:
        return "ignore", None
    value = stores[-1]
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return "store_const", value.value
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
        return "store_const", value.attr.value
    return "store", None


def _marked(name: str, markers: list[str]) -> bool:
    return any(m.lower() in name.lower() for m in markers)


def _mentions(info: ModuleInfo, node: cst.CSTNode | None, markers: list[str]) -> bool:
    if node is None:
        return False
    text = info.code(node).lower()
    return any(m.lower() in text for m in markers)


def replacement_from_help(help_text: str, patterns: list[str]) -> str | None:
    for pattern in patterns:
        m = re.search(pattern, help_text)
        if m:
            return m.group(1)
    return None
