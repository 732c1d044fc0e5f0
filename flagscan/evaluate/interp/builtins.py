"""evaluate: Python's builtins and the methods of plain values, over abstract values."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Dead, truth
from flagscan.evaluate.interp.state import OPEN, State, join_values, open_dict, partly_set_or
from flagscan.evaluate.interp.values import (
    ANY_ATTRIBUTE,
    BoundMethod,
    Builtin,
    ClassVal,
    ConfigView,
    ContextManagerFn,
    EnumMember,
    ExcVal,
    External,
    Fresh,
    FuncVal,
    GenericAlias,
    Maybe,
    ModuleVal,
    Obj,
    Outside,
    PartlySet,
    SuperVal,
    Unknown,
    has_unknown,
    mixin_of_enum,
    unknown_of,
)
from flagscan.pybuiltins import PURE_FUNCTIONS, SAFE_METHODS

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
    from flagscan.evaluate.interp.values import BuiltinFn

_PLAIN = (str, int, float, bool, type(None), tuple, list, dict, set, frozenset)
_EXCEPTIONS = (
    "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError", "AssertionError",
    "KeyError", "IndexError", "AttributeError", "NotImplementedError", "ImportError",
    "ModuleNotFoundError", "OSError", "FileNotFoundError", "StopIteration", "ZeroDivisionError",
    "UserWarning", "DeprecationWarning", "Warning", "ArithmeticError", "LookupError",
)
_MUTATORS: dict[type, set[str]] = {
    list: {"append", "extend", "insert", "remove", "pop", "sort", "clear", "reverse"},
    dict: {"update", "setdefault", "pop", "clear"},
    set: {"add", "update", "discard", "remove", "clear"},
}


_COPIES = {"dict", "list", "tuple"}
# Builtins that only rearrange their argument: unknown elements pass through.
_STRUCTURAL = {"list", "tuple", "reversed", "enumerate", "zip", "len", "dict"}
_KEY_VIEWS = {"set", "frozenset", "list", "tuple", "sorted", "len", "any", "all", "min", "max", "enumerate", "reversed"}


def _pure(name: str, fn: Callable[..., Any]) -> Builtin:
    def call(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
        # a generator's values are what it yields, its body run as the builtin iterates it
        args = [interp._consumed(a, state, module) for a in args]
        if name == "sorted" and "key" in kwargs and len(args) == 1 and isinstance(args[0], (list, tuple)):
            order = sort_order(interp, state, module, list(args[0]), kwargs)   # the key is analysed code
            return order if order is not None else unknown_of(*args[0], why="sorted(...) by keys not known")
        if args and isinstance(args[0], dict) and name in _KEY_VIEWS:
            if _open(args[0]):
                return Unknown(f"{name}(...) of a dict with keys not known")
            # iterating a dict sees its keys only; a key present on some paths is a Maybe
            args = [[Maybe(k) if isinstance(v, Maybe) else k for k, v in args[0].items()], *args[1:]]
        if name in _COPIES and len(args) == 1 and not kwargs and isinstance(args[0], Unknown) and args[0].options:
            # a copy of one of several known containers is one of their copies (a None or a
            # non-container option would raise: that path does not go on)
            copies = tuple(call(interp, state, [o], {}, module, line) for o in args[0].options
                           if isinstance(o, (list, tuple, dict)))
            if copies and len(copies) == len([o for o in args[0].options if o is not None]):
                return Unknown(f"{name}({args[0].why})", args[0].needs, copies)
        if name == "dict" and kwargs and (not args or (len(args) == 1 and isinstance(args[0], dict)
                                                       and not _open(args[0]))):
            # dict(a=x, b=y) / dict(d, a=x): its keys are known, unknown values stay elements
            # (scheduler.py maybe_init_draft_worker: dict(server_args=..., nccl_port=<not known>))
            return {**(args[0] if args else {}), **kwargs}
        if name in _COPIES and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple, dict)):
            # A copy keeps unknown elements as they are.
            if name == "dict" and isinstance(args[0], dict):
                return dict(args[0])
            if name in ("list", "tuple") and not isinstance(args[0], dict):
                return list(args[0]) if name == "list" else tuple(args[0])
        if name == "dict" and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)) \
                and any(isinstance(item, Unknown) or (isinstance(item, (list, tuple)) and item and has_unknown(item[0]))
                        for item in args[0]):
            pairs = _dict_of_pairs(args[0])
            if pairs is not None:
                return pairs
        if name == "len" and len(args) == 1 and isinstance(args[0], (list, tuple, set)) \
                and any(isinstance(a, Maybe) for a in args[0]):
            # elements present on some paths only: as many as the others, up to all of them
            maybe = sum(1 for a in args[0] if isinstance(a, Maybe))
            return Unknown("len(...) of elements present on some paths", frozenset(),
                           tuple(range(len(args[0]) - maybe, len(args[0]) + 1)))
        if name in _STRUCTURAL and args and all(isinstance(a, (list, tuple, range)) for a in args) and not kwargs:
            try:
                result = fn(*args)
            except (TypeError, ValueError) as exc:  # Python raises here (dict() of non-pairs); not followed
                return interp.give_up(f"{name}(...) raised {type(exc).__name__}", module, line)
            return list(result) if name in ("reversed", "enumerate", "zip") else result
        if any(has_unknown(a) for a in args) or any(has_unknown(v) for v in kwargs.values()):
            if name == "len" and args and isinstance(args[0], (list, tuple, dict, set)) \
                    and not any(isinstance(a, Maybe) for a in args[0]):
                return len(args[0])
            if name in ("any", "all") and args and isinstance(args[0], (list, tuple)):
                return _any_all(name, args[0])
            return unknown_of(*args, *kwargs.values(), why=f"{name}(...)")
        args = [a.data if isinstance(a, ConfigView) else a for a in args]
        if args and isinstance(args[0], EnumMember) and isinstance(args[0].value, (int, str)) and (
                (name in ("int", "float") and mixin_of_enum(args[0].cls) is int)
                or (name == "str" and mixin_of_enum(args[0].cls) is str)):
            args = [args[0].value, *args[1:]]   # an IntEnum's (StrEnum's) member is its int (str)
        if name in ("max", "min") and not kwargs and args:
            items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
            if items and any(isinstance(i, EnumMember) for i in items):
                return _extreme(interp, state, module, line, name, items)
        if any(not isinstance(a, _PLAIN + (range, EnumMember)) and not hasattr(a, "__iter__") for a in args):
            return Unknown(f"{name}(...) of an object")
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # Python raises here; flagscan does not follow the raise
            return interp.give_up(f"{name}(...) raised {type(exc).__name__}", module, line)
        if name in ("range", "reversed", "enumerate", "zip"):
            result = list(result)
        return result
    return Builtin(name, call)


def _extreme(interp: InterpreterParts, state: State, module: ModuleVal, line: int, name: str, items: list[Any]) -> Any:
    """`max(a, b)` / `min(...)` over enum members, ordered as the interpreter orders them (an
    IntEnum by its ints, or the class's own `__lt__`): Python keeps the first extreme item."""
    best = items[0]
    for item in items[1:]:
        better = interp.compare(">" if name == "max" else "<", item, best, state, module, line)
        if not isinstance(better, bool):
            return Unknown(f"{name}(...) of members not ordered", getattr(better, "needs", ()),
                           tuple(items) if len(items) <= 8 else None)
        if better:
            best = item
    return best


def _dict_of_pairs(items: list[Any] | tuple[Any, ...]) -> dict[Any, Any] | None:
    """`dict(pairs)` where some pairs are not known (0.5.9 kimi_k25.py `dict(vision_weights)`, a
    list of (name, weight) built over the checkpoint): the known pairs' keys, in order, and any
    other key (an unknown pair may also repeat a known key). None: an element Python refuses."""
    out: dict[Any, Any] = {}
    for item in items:
        inner = item.value if isinstance(item, Maybe) else item
        if isinstance(inner, (list, tuple)) and len(inner) == 2 and has_unknown(inner[0]):
            open_dict(out, inner[1], frozenset(getattr(inner[0], "needs", ())))   # a key not known
        elif isinstance(inner, (list, tuple)) and len(inner) == 2:
            key, value = inner
            try:
                if isinstance(item, Maybe) and key in out:   # on some paths only: old or new
                    old = out[key]
                    out[key] = join_values([old.value if isinstance(old, Maybe) else old, value], "dict(...)")
                else:
                    out[key] = Maybe(value) if isinstance(item, Maybe) else value
            except TypeError:
                return None
        elif isinstance(inner, Unknown):
            open_dict(out, Unknown("a pair of dict(...) not known", inner.needs), inner.needs)
        else:
            return None
    return out


def _open(value: Any) -> bool:
    return isinstance(value, dict) and OPEN in value


def _any_all(name: str, items: list[Any] | tuple[Any, ...]) -> Any:
    values = [truth(i) for i in items]
    if name == "any":
        if True in values:
            return True
        return False if None not in values else Unknown("any(...) of unknowns")
    if False in values:
        return False
    return True if None not in values else Unknown("all(...) of unknowns")


def table(interp: InterpreterParts) -> dict[str, Any]:
    t: dict[str, Any] = {name: _pure(name, fn) for name, fn in PURE_FUNCTIONS.items()}
    t.update({
        "isinstance": Builtin("isinstance", _isinstance),
        "issubclass": Builtin("issubclass", _issubclass),
        "hasattr": Builtin("hasattr", _hasattr),
        "getattr": Builtin("getattr", _getattr),
        "setattr": Builtin("setattr", _setattr),
        "print": Builtin("print", lambda *a: None),
        "type": Builtin("type", _type),
        # the calling module's own namespace, as Python gives it (parallel_state.py
        # `globals()[_name] = wrapped(_fn)` rebinds module functions)
        "globals": Builtin("globals", lambda i, s, a, k, m, l: m.globals),
        "callable": Builtin("callable", lambda i, s, a, k, m, l: not isinstance(a[0], _PLAIN) if a else False),
        "id": Builtin("id", lambda *a: Unknown("id()")),
        "iter": Builtin("iter", lambda i, s, a, k, m, l: list(a[0]) if a and isinstance(a[0], (list, tuple)) else Unknown("iter")),
        "next": Builtin("next", _next),
        "map": Builtin("map", _map),
        "filter": Builtin("filter", _filter),
        "super": Builtin("super", _super),
        "object": External("builtins.object"),
        "property": Builtin("property", lambda *a: Unknown("property")),
        "staticmethod": Builtin("staticmethod", lambda i, s, a, k, m, l: a[0] if a else None),
        "classmethod": Builtin("classmethod", lambda i, s, a, k, m, l: a[0] if a else None),
        "vars": Builtin("vars", _vars),
        "open": Builtin("open", lambda *a: Unknown("file contents", {"filesystem"})),
        "__import__": Builtin("__import__", lambda *a: Unknown("__import__")),
        "NotImplemented": None,
        "Ellipsis": None,
        "__file__": "<sglang source>",
        "math": External("math"),
    })
    for name in _EXCEPTIONS:
        t[name] = Builtin(name, _exception(name))
    return t


def _exception(name: str) -> BuiltinFn:
    def make(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
        return ExcVal(name, args[0] if args else "")
    return make


def _isinstance(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
                line: int) -> Any:
    if len(args) != 2:
        return Unknown("isinstance")
    value, types = args
    types = _union_members(types) if isinstance(types, tuple) else _union_members((types,))
    results = [_config_isinstance(interp, state, value, t) if isinstance(value, ConfigView) and isinstance(t, ClassVal)
               else _isinstance_one(value, t) for t in types]
    if True in results:
        return True
    if all(r is False for r in results):
        return False
    return Unknown("isinstance of an unknown value")


def _union_members(types: tuple[Any, ...]) -> tuple[Any, ...]:
    """isinstance(x, A | B | C) tests each member, as a tuple of types would be."""
    out: list[Any] = []
    for t in types:
        if isinstance(t, GenericAlias) and isinstance(t.origin, External) and t.origin.path == "types.UnionType":
            out.extend(_union_members(tuple(t.args)))
        else:
            out.append(t)
    return tuple(out)


def _config_isinstance(interp: InterpreterParts, state: State, view: ConfigView, t: ClassVal) -> bool | None:
    """isinstance(hf_config, SomeConfig) for a config loaded from config.json.

    SGLang's get_config builds the class its config registry (rules/world.toml [model]
    config_registries) holds for the config's `model_type`, and transformers' own class
    otherwise; a transformers class is never an instance of a class of the SGLang tree.
    Sub-configs (text_config...) are built by their parent's class: unknown unless their
    model_type is registered too."""
    cls = config_class(interp, state, view)
    if isinstance(cls, ClassVal):
        return t in cls.mro()
    return cls


def config_class(interp: InterpreterParts, state: State, view: ConfigView) -> ClassVal | bool | None:
    """The SGLang config class get_config builds for a config loaded from config.json: the
    class (a ClassVal), False when it is a transformers class (none of the tree's), None when
    not known."""
    model_type = view.data.get("model_type")
    if not isinstance(model_type, str):
        return None
    registry = interp.world.config_registry(interp, state)
    if registry is None:
        return None
    cls = registry.get(model_type)
    if isinstance(cls, ClassVal):
        return cls
    # the config.json itself (not a sub-config): its own model_type (copies of it keep that)
    model = interp.world.model
    if model is None or not model.complete or not isinstance(model.config, dict):
        return None
    if model.config.get("model_type") == model_type:
        return False if model_type not in registry and cls is None else None
    # a sub-config: the class the parent's registered class names for it (`sub_configs`)
    parent_type: Any = model.config.get("model_type")   # a JSON value, as config.json has it
    parent = registry.get(parent_type)
    found, subs = parent.lookup("sub_configs") if isinstance(parent, ClassVal) else (False, None)
    if not found or not isinstance(subs, dict):
        return None
    for key, sub in model.config.items():
        if isinstance(sub, dict) and sub.get("model_type") == model_type \
                and isinstance(sub_class := subs.get(key), ClassVal):
            return sub_class
    return None


def _vars(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
          line: int) -> Any:
    if args and isinstance(args[0], ClassVal):
        return dict(args[0].attrs)
    if args and isinstance(args[0], Obj):
        return dict(state.attrs(args[0].oid))
    return Unknown("vars()")


def _issubclass(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
                line: int) -> Any:
    if len(args) == 2 and isinstance(args[0], Builtin) and args[0].name in _BUILTIN_BASES:
        return _builtin_subclass(args[0].name, args[1])
    if len(args) == 2 and isinstance(args[0], External) and args[0].path == "builtins.NoneType":
        return _builtin_subclass("NoneType", args[1])
    if len(args) != 2 or not isinstance(args[0], ClassVal):
        return Unknown("issubclass")
    bases = args[1] if isinstance(args[1], tuple) else (args[1],)
    results: list[bool | None] = []
    for base in bases:
        if isinstance(base, ClassVal):
            results.append(base in args[0].mro())
        elif isinstance(base, External):
            results.append(any(isinstance(b, External) and b.path == base.path
                               for c in args[0].mro() for b in c.bases) or None)
        else:
            results.append(None)
    if True in results:
        return True
    return False if all(r is False for r in results) else Unknown("issubclass of an external class")


# A builtin type's bases are builtin types: `issubclass(int, msgspec.Struct)` is False.
_BUILTIN_BASES = {"int": ("int",), "bool": ("bool", "int"), "float": ("float",), "str": ("str",),
                  "list": ("list",), "tuple": ("tuple",), "dict": ("dict",), "set": ("set",),
                  "frozenset": ("frozenset",), "NoneType": ("NoneType",)}


def _builtin_subclass(name: str, bases: Any) -> Any:
    results: list[bool | None] = []
    for base in bases if isinstance(bases, tuple) else (bases,):
        if isinstance(base, Builtin):
            results.append(base.name in _BUILTIN_BASES[name] or base.name == "object")
        elif isinstance(base, External):
            # abstract bases (typing, collections.abc, numbers) may count builtins as subclasses
            open_abc = base.path.split(".")[0] in ("builtins", "typing", "collections", "numbers", "abc")
            results.append(base.path == "builtins.object" or (None if open_abc else False))
        elif isinstance(base, ClassVal):
            results.append(False)  # a class of the analysed tree is no base of a builtin type
        else:
            results.append(None)
    if True in results:
        return True
    return False if all(r is False for r in results) else Unknown("issubclass of a builtin type")


def _isinstance_one(value: Any, t: Any) -> Any:
    if isinstance(value, Unknown):
        if value.options is not None and value.options:
            rs = {_isinstance_one(o, t) for o in value.options}
            return rs.pop() if len(rs) == 1 else None
        return None
    if isinstance(t, Builtin) and t.name == "type":
        # an Enum member is an instance, not a class (0.5.23 get_model_loader's `isinstance(load_format, type)`)
        return isinstance(value, ClassVal) or (False if isinstance(value, _PLAIN + (Obj, EnumMember)) else None)
    if isinstance(t, Builtin):
        pytype = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple,
                  "dict": dict, "set": set, "frozenset": frozenset}.get(t.name)
        if pytype is None:
            return (isinstance(value, ExcVal) and value.type_name == t.name) or None
        if pytype is int and isinstance(value, bool):
            return True
        if isinstance(value, ConfigView):
            return False  # a transformers config object is no dict
        return isinstance(value, pytype)
    if isinstance(t, ClassVal):
        if isinstance(value, Obj):
            return t in value.cls.mro()
        if isinstance(value, EnumMember):
            return value.owner == t.name
        if isinstance(value, _PLAIN):
            return False
        return None
    if isinstance(t, External):
        if isinstance(value, _PLAIN) and not t.path.startswith(("typing", "collections")):
            return False
        return None
    return None


def _hasattr(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
    obj, name = (args + [None, None])[:2]
    if isinstance(obj, Obj) and isinstance(name, str):
        attrs = state.attrs(obj.oid)
        found, _ = obj.cls.lookup(name)
        if isinstance(attrs.get(name), PartlySet) and not found:
            return Unknown(f"hasattr({obj.cls.name}, {name!r}): {attrs[name].why}", attrs[name].needs)
        if name in attrs:
            return True
        if found:
            return True
        if interp.outside_may_hold(obj, name):
            # the outside base may hold it (nn.Module's own attributes, what outside code sets):
            # not known; what the tree registers is an attribute (rules/startup.toml stores)
            return Unknown(f"hasattr({obj.cls.name}, {name!r})", {f"runtime:{obj.cls.name}.{name}"})
        return False
    if isinstance(obj, ConfigView) and isinstance(name, str):
        return interp.world.config_has(obj, name)
    if isinstance(obj, ClassVal) and isinstance(name, str):
        return obj.lookup(name)[0]
    if isinstance(obj, External) and isinstance(name, str):
        return interp.world.external_has(obj, name)
    if isinstance(obj, _PLAIN) and isinstance(name, str):
        return hasattr(obj, name)
    return Unknown("hasattr of an unknown object")


def _getattr(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
    if len(args) < 2 or not isinstance(args[1], str):
        return Unknown("getattr")
    obj, name = args[0], args[1]
    if len(args) > 2:
        partly = state.attrs(obj.oid).get(name) if isinstance(obj, Obj) else None
        if isinstance(partly, PartlySet) and not obj.cls.lookup(name)[0]:
            # set on some paths only: what those set, or the default on the others
            return partly_set_or(partly, args[2], f"getattr({name}) set on some paths only")
        has = _hasattr(interp, state, [obj, name], {}, module, line)
        if has is False:
            return args[2]
        if isinstance(has, Unknown):
            value = interp.getattr(obj, name, state, module)
            if isinstance(value, Unknown):
                return unknown_of(value, why=f"getattr({name})")
            return value
    return interp.getattr(obj, name, state, module)


def _setattr(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
    if len(args) != 3:
        return None
    obj, name, value = args
    if isinstance(name, str):
        interp.setattr(obj, name, value, state, module, line)
    elif isinstance(name, Unknown) and name.options and all(isinstance(n, str) for n in name.options):
        # one of a few names: each attribute holds its old value or the new one
        for n in name.options:
            interp.setattr(obj, n, join_values([interp.getattr(obj, n, state, module), value],
                                               f"setattr of .{n} on some paths"), state, module, line)
    elif isinstance(obj, Obj) and not isinstance(name, Unknown):
        interp.give_up(f"setattr with a {type(name).__name__} name", module, line, "what it writes")
    elif isinstance(obj, Obj):
        # a name not known: any attribute of the object may now be `value`, and one it lacks may exist
        interp.written_anywhere.add(ANY_ATTRIBUTE)
        attrs = state.writable(obj.oid)
        for n in [n for n in attrs if not n.startswith("__")]:
            attrs[n] = join_values([attrs[n], value], f"setattr of {name.why}")
    elif not (isinstance(obj, (External, Outside)) or (isinstance(obj, Unknown) and obj.needs)):
        interp.give_up(f"setattr of {getattr(name, 'why', '?')} on {getattr(obj, 'why', type(obj).__name__)}",
                       module, line, "what it writes")
    return None


def _type(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
          line: int) -> Any:
    if len(args) == 1:
        value = args[0]
        if value is None:
            return External("builtins.NoneType")
        if isinstance(value, Obj):
            return value.cls
        if isinstance(value, _PLAIN):
            # the builtin itself, so that `type(x) is int` and `type(x)(items)` behave as in Python
            return interp.builtins.get(type(value).__name__) or Builtin(type(value).__name__, lambda *a: Unknown("type call"))
        if isinstance(value, Unknown):
            # the class of a value not known is as unknown as the value, for the same facts
            return Unknown(f"type({value.why})", value.needs)
    return Unknown("type()")


def _next(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
          line: int) -> Any:
    items = args[0] if args else None
    if isinstance(items, (list, tuple)) and items:
        return items[0]
    if isinstance(items, (list, tuple)) and len(args) > 1:
        return args[1]
    return Unknown("next()")


def _map(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
         line: int) -> Any:
    if len(args) == 2:
        items = interp.iterate(args[1], state, module)
        if items is not None:
            return [interp.call(args[0], [x], {}, state, module) for x in items]
    return Unknown("map()")


def _filter(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
            line: int) -> Any:
    if len(args) == 2:
        items = interp.iterate(args[1], state, module)
        if items is not None:
            out = []
            for x in items:
                t = truth(x if args[0] is None else interp.call(args[0], [x], {}, state, module))
                if t is None:
                    return Unknown("filter()")
                if t:
                    out.append(x)
            return out
    return Unknown("filter()")


def _super(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
           line: int) -> Any:
    """super() inside a method: the classes after the method's owner in the instance's MRO."""
    frame = interp.stack[-1][0] if interp.stack else ""
    obj = state.locals.get("self", state.locals.get("cls"))
    owner_name = frame.split(".")[-2] if frame.count(".") >= 1 else ""
    cls = obj.cls if isinstance(obj, Obj) else obj
    if isinstance(cls, ClassVal):
        mro = cls.mro()
        names = [c.name for c in mro]
        rest = mro[names.index(owner_name) + 1:] if owner_name in names else mro[1:]
        return SuperVal(rest, obj)
    return Unknown("super()")


def _maybe_entry(attr: str, key: Any, value: Any) -> Any:
    """An entry of a joined dict that exists on some paths only is a Maybe element."""
    maybe = isinstance(value, Maybe)
    inner = value.value if maybe else value
    item = key if attr == "keys" else inner if attr == "values" else (key, inner)
    return Maybe(item) if maybe else item


def method_of(base: Any, attr: str) -> Any:
    """A bound method of a plain value, evaluated only on known arguments."""
    if isinstance(base, dict) and OPEN in base:
        return _open_dict_method(base, attr)
    methods = SAFE_METHODS.get(type(base), frozenset())
    if attr in methods:
        bound = getattr(base, attr)

        def call(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
                 line: int) -> Any:
            if any(has_unknown(a) for a in args) or any(has_unknown(v) for v in kwargs.values()):
                if attr == "get" and isinstance(base, dict) and args and not has_unknown(args[0]):
                    return base.get(*args)
                if attr == "get" and isinstance(base, dict) and args and isinstance(args[0], Unknown) \
                        and len(base) <= _OPTIONS:
                    # a known dict under a key not known: one of its values, or the default
                    values = [v.value if isinstance(v, Maybe) else v for v in base.values()]
                    default = args[1] if len(args) > 1 else kwargs.get("default")
                    return Unknown(f".get({args[0].why})", args[0].needs, tuple(values) + (default,))
                return unknown_of(*args, *kwargs.values(), why=f".{attr}(...)")
            try:
                result = bound(*args, **kwargs)
            except Exception as exc:  # Python raises here; flagscan does not follow the raise
                return interp.give_up(f"{type(base).__name__}.{attr}(...) raised {type(exc).__name__}", module, line)
            if isinstance(base, dict) and attr in ("keys", "values", "items"):
                result = [_maybe_entry(attr, k, v) for k, v in base.items()]
            elif isinstance(base, dict) and attr == "get" and isinstance(result, Maybe):
                result = join_values([result.value, args[1] if len(args) > 1 else None], "dict.get")
            elif attr in ("keys", "values", "items"):
                result = list(result)
            return result
        return Builtin(attr, call)
    if attr in _MUTATORS.get(type(base), set()):
        bound = getattr(base, attr)

        def mutate(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any],
                   module: ModuleVal, line: int) -> Any:
            if isinstance(base, dict) and _unknown_keys(attr, args, kwargs):
                # keys not known: any entry may now hold what was written, others may exist
                fresh = _bucket(base, attr, args)
                open_dict(base, unknown_of(*args, *kwargs.values(), why=f".{attr}(...)"))
                return fresh if fresh is not None else unknown_of(*args, why=f".{attr}(...)")
            if isinstance(base, (list, set)) and attr in ("extend", "update") and args and (
                    isinstance(args[0], Unknown) or not isinstance(args[0], (list, tuple, set, frozenset, dict, str))):
                # elements not known, in a number not known: the container itself is now unknown
                interp.forget(base, state, module, line, f"{type(base).__name__} after .{attr}(...) of elements "
                              "not known", getattr(args[0], "needs", frozenset()))
                return None
            if isinstance(base, (list, set)) and attr == "index" and has_unknown(args):
                return unknown_of(*args, why=f".{attr}(...)")
            if isinstance(base, (list, set)) and attr in ("remove", "discard", "pop") and has_unknown(args):
                # which element goes is not known: what is left is not either
                interp.forget(base, state, module, line, f"{type(base).__name__} after .{attr}(...) of an "
                              "element not known", frozenset().union(*(getattr(a, "needs", ()) for a in args)))
                return unknown_of(*args, why=f".{attr}(...)") if attr == "pop" else None
            if isinstance(base, list) and attr == "sort" and not args and "key" in kwargs:
                order = sort_order(interp, state, module, list(base), kwargs)
                if order is None:   # a key or the direction not known: the order is not known
                    interp.forget(base, state, module, line, "list after .sort(key=...) of keys not known",
                                  frozenset())
                else:
                    base[:] = order
                return None
            try:
                return bound(*args, **kwargs)
            except Exception as exc:
                return interp.give_up(f".{attr}(...) raised {type(exc).__name__}", module, line)
        return Builtin(attr, mutate)
    return Unknown(f"{type(base).__name__}.{attr}")


_OPTIONS = 256   # a lookup under an unknown key in a larger dict is not spelled out value by value


def sort_order(interp: InterpreterParts, state: State, module: ModuleVal, items: list[Any],
               kwargs: dict[str, Any]) -> list[Any] | None:
    """`items` in the order `sorted(items, key=f, reverse=r)` gives, the key computed by
    calling `f` (analysed code, a lambda of SGLang's) on each element; None when an element,
    a key or the direction is not known (or Python would refuse to compare the keys)."""
    key, reverse = kwargs.get("key"), kwargs.get("reverse", False)
    if set(kwargs) - {"key", "reverse"} or not isinstance(reverse, bool) or has_unknown(items) \
            or any(isinstance(i, Maybe) for i in items):
        return None
    keys = []
    for item in items:
        if key is None:
            keys.append(item)
            continue
        try:
            value = interp.call(key, [item], {}, state, module)
        except Dead:
            return None   # the key function raises: not followed here
        if has_unknown(value) or not isinstance(value, _PLAIN):
            return None
        keys.append(value)
    try:
        ranked = sorted(range(len(items)), key=lambda i: keys[i], reverse=reverse)
    except TypeError:
        return None
    return [items[i] for i in ranked]


def _bucket(base: dict[Any, Any], attr: str, args: list[Any]) -> Fresh | None:
    """`d.setdefault(key not known, {})` on a dict that holds nothing yet (0.5.14 deepseek_v4.py's
    `bucket = cache.setdefault(param_name, {})` in the weight loop): what it returns is the new
    empty container or one an earlier pass stored the same way, so a container no other object
    the model knows holds; its contents are not known (an earlier pass may have filled it)."""
    if attr != "setdefault" or base or len(args) < 2 or not isinstance(args[1], (dict, list, set)) or args[1]:
        return None
    return Fresh("an entry of a dict under a key not known", getattr(args[0], "needs", frozenset()))


def _unknown_keys(attr: str, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a dict mutator writes or removes keys that are not known."""
    if attr in ("setdefault", "pop"):
        return bool(args) and has_unknown(args[0])
    if attr == "update":
        if args and not isinstance(args[0], dict):
            return True  # pairs or a mapping not followed
        return bool(args) and any(has_unknown(k) for k in args[0])
    return False


def _open_dict_method(base: dict[Any, Any], attr: str) -> Any:
    """Methods of a dict written under an unknown key: what depends on its keys is unknown."""
    def call(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
        if attr == "get" and args and not has_unknown(args[0]) and args[0] in base:
            value = base[args[0]]
            return value.value if isinstance(value, Maybe) else value
        if attr == "copy":
            return dict(base)
        if attr in ("update", "setdefault"):
            if attr == "update" and args and isinstance(args[0], dict) and not any(has_unknown(k) for k in args[0]):
                base.update(args[0])
                return None
            open_dict(base, unknown_of(*args, why=f".{attr}(...)"))
            return unknown_of(*args, why=f".{attr}(...)")
        return unknown_of(base[OPEN], why=f".{attr}(...) of a dict with keys not known")
    return Builtin(attr, call)


__all__ = ["BoundMethod", "FuncVal", "math", "method_of", "table"]


def wraps(wrapped: Any) -> Any:
    """`functools.wraps(wrapped)`: the decorator that returns the wrapper it decorates, given
    the wrapped function's name, module, attributes and `__wrapped__` (functools.update_wrapper).
    (Not the wrapped function itself: `@wraps(fn) def wrapper` keeps `wrapper`.)"""

    def apply(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
              line: int) -> Any:
        wrapper = args[0] if args else None
        if isinstance(wrapper, FuncVal):
            if isinstance(wrapped, FuncVal):
                wrapper.attrs.update({k: v for k, v in wrapped.attrs.items() if k != "__wrapped__"})
                for attr in ("__name__", "__qualname__", "__module__"):
                    wrapper.attrs[attr] = interp.getattr(wrapped, attr, state, module)
            wrapper.attrs["__wrapped__"] = wrapped
        return wrapper

    return Builtin("functools.wraps(...)", apply)


def contextmanager(fn: Any) -> Any:
    """`contextlib.contextmanager(fn)`: a generator function becomes one whose generator `with`
    enters (interp/generators.py); anything else is not followed."""
    if isinstance(fn, FuncVal) and fn.ir.get("generator"):
        return ContextManagerFn(fn)
    return Unknown("contextlib.contextmanager(...)")
