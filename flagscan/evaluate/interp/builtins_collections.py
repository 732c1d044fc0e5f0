"""evaluate: `collections.defaultdict` over abstract values (rules/world.toml [python] "defaultdict").

SGLang picks classes by device through a defaultdict: 0.5.5-0.5.23 ModelRunner.init_device_graphs
builds `defaultdict(lambda: CudaGraphRunner, {"cpu": CPUGraphRunner, "npu": NPUGraphRunner})`
and calls `graph_runners[self.device](self)`. The defaultdict is an instance whose entries live
on the heap (so each path sees its own); a key it holds gives its value, a key it does not hold
gives what `default_factory()` returns, called then and kept as Python's `__missing__` does, and
without a factory a KeyError is raised. A key not known gives one of the entries it holds or
a new value under some other key (0.5.14-0.5.23 utils/common.py get_physical_cpus_by_numa:
`physical_by_node = defaultdict(dict)`, then `physical_by_node[node][key] = cpu` with the NUMA
node read from lscpu). That new value (a Fresh one, made once per defaultdict with a builtin or
outside factory) stands for every entry made under a key not known: what it holds is not known
(a method of it such as `append` may have changed it), a store through it reaches no other
object, a store through one of the entries is a weak one (the entry holds the old value or the
new one), and a known key read afterwards may be that entry or a fresh one. What the model does
not define (iteration, `len`, `in`) is unknown, as for any outside object.
"""

from __future__ import annotations

from typing import Any

from flagscan.evaluate.interp.values import (
    Builtin,
    ClassVal,
    ExcVal,
    External,
    Fresh,
    Maybe,
    ModuleVal,
    Obj,
    Unknown,
    has_unknown,
)

_DATA = "\0entries"      # the heap attribute that holds the entries (no Python name can be it)
_SOME = "\0some"         # the value made under keys not known (any number of entries, one value)
_FACTORY = "default_factory"


def defaultdict(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
                line: int) -> Any:
    """`defaultdict(factory=None, mapping=(), **entries)`: an instance with those entries."""
    factory = args[0] if args else None
    initial = args[1] if len(args) > 1 else {}
    if len(args) > 2 or not isinstance(initial, dict) or has_unknown(list(initial)) or any(
            isinstance(v, Maybe) for v in initial.values()):
        return Unknown("collections.defaultdict(...) of entries not known", {"runtime:collections.defaultdict"})
    entries = {**initial, **kwargs}
    obj = interp.new_obj(_class(module), state, {_FACTORY: factory, _DATA: entries})
    # a method read off the instance is not bound by the interpreter: this one is bound here
    state.writable(obj.oid)["get"] = Builtin("defaultdict.get", lambda i, s, a, k, m, l: _get(i, s, [obj, *a], k, m, l))
    return obj


_CLASSES: dict[str, ClassVal] = {}


def _class(module: ModuleVal) -> ClassVal:
    cls = _CLASSES.get(module.name)
    if cls is None:
        cls = _CLASSES[module.name] = ClassVal("defaultdict", module, None, [External("collections.defaultdict")], {
            "__getitem__": Builtin("defaultdict.__getitem__", _getitem),
            "__setitem__": Builtin("defaultdict.__setitem__", _setitem),
        })
    return cls


def _entries(state: Any, obj: Obj) -> dict[Any, Any]:
    entries = state.attrs(obj.oid).get(_DATA)
    return entries if isinstance(entries, dict) else {}


def _getitem(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: ModuleVal, line: int) -> Any:
    obj, key = args[0], args[1]
    entries = _entries(state, obj)
    if has_unknown(key):
        return _unknown_key(interp, state, obj, key, module)
    if key in entries:
        return entries[key]
    if isinstance(key, External):
        # another dotted path may name one of the keys (`torch.half` is `torch.float16`)
        return Unknown(f"defaultdict[{key.path}]", {f"runtime:{key.path}"})
    factory = state.attrs(obj.oid).get(_FACTORY)
    if factory is None:
        interp._raise_here(state, ExcVal("KeyError", key))
    if isinstance(factory, Unknown):
        return Unknown("defaultdict(...)'s default_factory()", factory.needs)
    value = interp.call(factory, [], {}, state, module)
    if _SOME in state.attrs(obj.oid):
        # a read under a key not known may have made this entry already
        value = Unknown(f"defaultdict[{key!r}]", frozenset(), (state.attrs(obj.oid)[_SOME], value))
    # __missing__ keeps what the factory made under the key
    state.writable(obj.oid)[_DATA] = {**_entries(state, obj), key: value}
    return value


def _unknown_key(interp: Any, state: Any, obj: Obj, key: Any, module: ModuleVal) -> Any:
    """`d[k]`, k not known: one of the entries, or the value made under keys not known."""
    needs = frozenset(getattr(key, "needs", ()))
    factory = state.attrs(obj.oid).get(_FACTORY)
    if not isinstance(factory, (Builtin, External)):
        # no factory (a KeyError on some paths), one not known, or analysed code: not followed
        return Unknown("defaultdict[a key not known]", needs)
    if _SOME not in state.attrs(obj.oid):
        state.writable(obj.oid)[_SOME] = Fresh("an entry of a defaultdict made under a key not known")
    options = (*(v.value if isinstance(v, Maybe) else v for v in _entries(state, obj).values()),
               state.attrs(obj.oid)[_SOME])
    return Unknown("defaultdict[a key not known]", needs, options if len(options) <= _OPTIONS else None)


_OPTIONS = 8   # as many as a store through one of several values reaches (interp._candidates)


def _setitem(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: ModuleVal, line: int) -> Any:
    obj, key, value = args[0], args[1], args[2]
    if has_unknown(key):
        # any entry may now be the one written: none is known any more
        state.writable(obj.oid)[_DATA] = {}
        state.writable(obj.oid)[_FACTORY] = Unknown("defaultdict after a store under a key not known",
                                                   frozenset(getattr(key, "needs", ())))
        state.writable(obj.oid).pop(_SOME, None)
        return None
    state.writable(obj.oid)[_DATA] = {**_entries(state, obj), key: value}
    return None


def _get(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: ModuleVal, line: int) -> Any:
    """`.get(key, default=None)` does not call the factory."""
    obj, key = args[0], args[1] if len(args) > 1 else kwargs.get("key")
    default = args[2] if len(args) > 2 else kwargs.get("default")
    if has_unknown(key) or isinstance(state.attrs(obj.oid).get(_FACTORY), Unknown):
        return Unknown("defaultdict.get(...)", frozenset(getattr(key, "needs", ())))
    entries = _entries(state, obj)
    if key not in entries and _SOME in state.attrs(obj.oid):
        return Unknown(f"defaultdict.get({key!r})", frozenset(), (state.attrs(obj.oid)[_SOME], default))
    return entries[key] if key in entries else default
