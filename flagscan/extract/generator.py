"""extract: flags generated from annotated fields (`name: A[T, Arg(...)] = default`)."""

from __future__ import annotations

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
from flagscan.extract.fields import MISSING, FieldDecl, class_fields, field_default, module_tail
from flagscan.extract.flagbuild import build_flag
from flagscan.extract.modules import ModuleInfo
from flagscan.facts.flags import Flag, Location
from flagscan.strict import give_up


def _metadata(ev: Evaluator, rules: dict[str, Any], decl: FieldDecl) -> tuple[cst.BaseExpression, dict[str, Any]] | None:
    """(type expression, Arg keywords with the release's own Arg defaults) or None."""
    gen = rules["generator"]
    ann = decl.annotation
    if not (isinstance(ann, cst.Subscript) and module_tail(ann.value) in gen["annotated"]):
        return None
    elements = [s.slice.value for s in ann.slice if isinstance(s.slice, cst.Index)]
    if len(elements) < 2:
        return None
    scope = Scope(decl.module)
    for meta in elements[1:]:
        if isinstance(meta, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            try:
                return elements[0], {**_arg_defaults(ev, decl, None, gen), gen["metadata"]["help"]: ev.value(meta, scope)}
            except NotStatic:
                return elements[0], {**_arg_defaults(ev, decl, None, gen), gen["metadata"]["help"]: ""}
        if isinstance(meta, cst.Call) and module_tail(meta.func) == gen["metadata_class"]:
            kwargs = dict(_arg_defaults(ev, decl, meta, gen))
            for arg in meta.args:
                if arg.keyword is None:
                    continue
                try:
                    kwargs[arg.keyword.value] = ev.eval(arg.value, scope)
                except NotStatic:
                    kwargs[arg.keyword.value] = Opaque(decl.module.code(arg.value))
                kwargs.setdefault("_texts", {})[arg.keyword.value] = decl.module.code(arg.value)
            return elements[0], kwargs
    return None


# _unwrap's (kind, payload): literal values, a list's element type name, or a scalar's type name
_Unwrapped = tuple[str, list[Any] | str | None]

_ARG_DEFAULTS_CACHE: dict[tuple[str, str], dict[str, Any]] = {}


def _arg_defaults(ev: Evaluator, decl: FieldDecl, call: cst.Call | None, gen: dict[str, Any]) -> dict[str, Any]:
    """The metadata class's own field defaults, read from the release (not assumed)."""
    ref = None
    if call is not None:
        try:
            ref = ev.eval(call.func, Scope(decl.module))
        except NotStatic:
            ref = None
    if not isinstance(ref, ClassRef):
        try:
            ref = ev.eval(cst.Name(gen["metadata_class"]), Scope(decl.module))
        except NotStatic:
            return {}
    if not isinstance(ref, ClassRef):
        return {}
    key = (ref.module, ref.name)
    if key not in _ARG_DEFAULTS_CACHE:
        info = ev.index.module(ref.module)
        out: dict[str, Any] = {}
        if info is not None and ref.name in info.classes:
            for f in class_fields(info, info.classes[ref.name]):
                value = field_default(ev, f)
                out[f.name] = None if value is MISSING else value
        _ARG_DEFAULTS_CACHE[key] = out
    return _ARG_DEFAULTS_CACHE[key]


def _unwrap(ev: Evaluator, rules: dict[str, Any], node: cst.BaseExpression, scope: Scope) -> _Unwrapped:
    """(kind, payload): ("literal", values) | ("list", elem type name) | ("bool", None) | ("scalar", name)."""
    gen = rules["generator"]
    # Optional[X], Union[X, None], X | None
    if isinstance(node, cst.Subscript):
        head = module_tail(node.value)
        inner = [s.slice.value for s in node.slice if isinstance(s.slice, cst.Index)]
        if head in gen["optional_wrappers"] and len(inner) == 1:
            return _unwrap(ev, rules, inner[0], scope)
        if head in gen["union_wrappers"]:
            rest = [i for i in inner if not _is_none(i)]
            if len(rest) == 1:
                return _unwrap(ev, rules, rest[0], scope)
            return ("scalar", None)
        if head in gen["literal_wrappers"]:
            try:
                return ("literal", [ev.value(i, scope) for i in inner])
            except NotStatic:
                return ("literal", None)
        if head in gen["list_types"]:
            return ("list", _scalar_name(rules, inner[0]) if inner else "str")
        return ("scalar", None)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        parts = [p for p in (node.left, node.right) if not _is_none(p)]
        if len(parts) == 1:
            return _unwrap(ev, rules, parts[0], scope)
        return ("scalar", None)
    if isinstance(node, cst.SimpleString):  # a string annotation: "Optional[int]"
        text = node.evaluated_value
        try:
            # libcst's parser decodes bytes as UTF-8 itself; parse_expression is typed for text only
            source = text if isinstance(text, str) else text.decode("utf-8")
            return _unwrap(ev, rules, cst.parse_expression(source), scope)
        except cst.ParserSyntaxError:
            return ("scalar", None)
    if module_tail(node) == "bool":
        return ("bool", None)
    if module_tail(node) in gen["list_types"]:
        return ("list", "str")
    return ("scalar", _scalar_name(rules, node))


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _scalar_name(rules: dict[str, Any], node: cst.BaseExpression) -> str | None:
    name: str | None = rules["generator"]["scalar_types"].get(module_tail(node))
    return name


def generate_field_flag(ev: Evaluator, rules: dict[str, Any], decl: FieldDecl, default: Any,
                        generator: Any = None) -> Flag | None:
    """What add_cli_args_from_dataclass registers for one field, or None: no flag, or (with a
    note in `ev.notes`) a flag whose option name the release's own name function did not give.
    `generator` is the generator function the registration calls (a FuncRef), whose module
    holds the name function."""
    meta = _metadata(ev, rules, decl)
    if meta is None:
        return None
    type_node, raw = meta
    gen = rules["generator"]
    # The metadata's keywords by their role (rules/cli.toml [generator.metadata]).
    arg = {role: raw.get(keyword) for role, keyword in gen["metadata"].items()}
    if arg["skip"] is True:
        return None
    texts = raw.get("_texts", {}) if isinstance(raw.get("_texts"), dict) else {}
    cli_name = arg["cli_name"] or _cli_name(ev, gen, decl, generator)
    if cli_name is None:
        note = give_up(f"option name of field {decl.name} unknown ({gen['cli_name_function']} not evaluated); "
                       "the field's flag is left out", f"{decl.module.relpath}:{decl.line}")
        if note not in ev.notes:
            ev.notes.append(note)
        return None
    aliases = arg["aliases"] or []
    options = [cli_name] + list(aliases if isinstance(aliases, (list, tuple)) else [])
    kwargs: dict[str, Any] = {"help": arg["help"] or "", "dest": decl.name}
    if default is not MISSING:
        kwargs["default"] = default
    location = Location(decl.module.relpath, decl.line)
    kind, payload = ("action", None) if arg["action"] is not None else \
        _unwrap(ev, rules, type_node, Scope(decl.module))
    applies = {"action": kind == "action", "literal": kind == "literal", "bool": kind == "bool",
               "list": kind == "list" and arg["type"] is None, "scalar": True}
    branch = next(b for b in gen["branch_order"] if applies[b])
    if branch == "action":
        kwargs["action"] = arg["action"]
        if isinstance(arg["action_kwargs"], dict):
            kwargs.update(arg["action_kwargs"])
        return build_flag(ev, rules, options, kwargs, texts, location)
    if branch == "bool":
        kwargs["action"] = gen["bool_action"]
        return build_flag(ev, rules, options, kwargs, texts, location)
    if branch == "literal":
        values = payload if payload is not None else Opaque(decl.module.code(type_node))
        kwargs["choices"] = arg["choices"] or values
        first = payload[0] if payload else ""
        kwargs["type"] = arg["type"] or gen["scalar_types"].get(type(first).__name__, gen["fallback_type"])
    elif branch == "list":
        kwargs["type"] = payload or gen["fallback_type"]
        kwargs["nargs"] = arg["nargs"] or gen["list_default_nargs"]
        if arg["choices"]:
            kwargs["choices"] = arg["choices"]
    else:
        kwargs["type"] = arg["type"] or (payload if kind == "scalar" and payload else gen["fallback_type"])
        if arg["choices"]:
            kwargs["choices"] = arg["choices"]
        if arg["nargs"]:
            kwargs["nargs"] = arg["nargs"]
        required = arg["required"]
        if gen["required_when_no_default"] and (required is True or (required is None and default is MISSING)):
            kwargs["required"] = any(o.startswith("-") for o in options)
    if arg["const"] is not None:
        kwargs["const"] = arg["const"]
    if isinstance(kwargs.get("type"), str):
        kwargs["type"] = {"int": int, "float": float, "str": str}.get(kwargs["type"], kwargs["type"])
    return build_flag(ev, rules, options, kwargs, texts, location)


def _cli_name(ev: Evaluator, gen: dict[str, Any], decl: FieldDecl, generator: Any) -> str | None:
    """The release's own name function evaluated on the field name; None when it cannot be."""
    module = ev.index.module(generator.module) if isinstance(generator, FuncRef) else None
    try:
        fn = ev.eval(cst.Name(gen["cli_name_function"]), Scope(module or _generator_module(ev, gen, decl)))
        if isinstance(fn, FuncRef):
            value = ev.call_function(fn, [decl.name], {})
            if isinstance(value, str):
                return value
    except NotStatic:
        pass
    return None


def _generator_module(ev: Evaluator, gen: dict[str, Any], decl: FieldDecl) -> ModuleInfo:
    """Where the generator function is not known: the module defining the metadata class (arg_utils)."""
    try:
        ref = ev.eval(cst.Name(gen["metadata_class"]), Scope(decl.module))
    except NotStatic:
        ref = None
    if isinstance(ref, ClassRef):
        info = ev.index.module(ref.module)
        if info is not None:
            return info
    return decl.module
