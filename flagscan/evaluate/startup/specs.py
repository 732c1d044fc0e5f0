"""evaluate: the startup phase: the values rules/startup.toml gives an entry's arguments,
attributes and a serving method's context (a setting, a constant, what an earlier entry built,
an instance of a tree class, what a tree function returns)."""

from __future__ import annotations

import re
from typing import Any

from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ClassVal, FuncVal, ModuleVal, Obj, Unknown


def spec_value(spec: Any, record: Any, interp: Any = None, state: State | None = None,
               built: dict[str, Any] | None = None) -> Any:
    """The value a rules/startup.toml spec stands for, on the resolved `record`."""
    if isinstance(spec, Obj):
        return spec   # a value the caller found already (serving.py: an object the entry built)
    if isinstance(spec, dict):
        if "call" in spec:
            return call_value(spec, record, interp, state, built)
        if "attributes" in spec:
            return bare_instance(spec, record, interp, state, built)
        return instance_of(spec, record, interp, state, built)
    if spec == "record":
        return record
    kind, _, text = spec.partition(":")
    if kind == "unknown":
        return Unknown(text, {f"runtime:{text}"})
    if kind == "const":
        if text in ("none", "true", "false"):
            return {"none": None, "true": True, "false": False}[text]
        return int(text) if re.fullmatch(r"-?\d+", text) else text
    if kind == "setting" and state is not None and isinstance(record, Obj):
        return state.attrs(record.oid).get(text, Unknown(f"setting {text}", {f"setting:{text}"}))
    if kind == "entry" and state is not None:
        # what an earlier entry built, or an attribute of it (`entry:TP worker.model_runner`)
        name, *path = text.split(".")
        value = (built or {}).get(name, Unknown(f"the {name} (not built)", {f"runtime:{name}"}))
        for attr in path:
            value = interp.deref(value, state) if interp is not None else value
            value = state.attrs(value.oid).get(attr, Unknown(f"{name}.{attr}", {f"runtime:{name}"})) \
                if isinstance(value, Obj) else Unknown(f"{name}.{attr}", {f"runtime:{name}"})
        return value
    raise ValueError(f"rules/startup.toml: unknown argument value {spec!r}")


def dotted_object(interp: Any, state: State, dotted: str) -> tuple[Any, ModuleVal | None]:
    """The tree object a dotted path names (a module's global, then its attributes), and its module."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        if not interp.store.module_file(module_name):
            continue
        module = interp.import_module(module_name, state)
        if not isinstance(module, ModuleVal):
            return None, None
        value = interp.deref(module.globals.get(parts[cut]), state)
        for attr in parts[cut + 1:]:
            if value is None or isinstance(value, Unknown):
                return None, None
            value = interp.getattr(value, attr, state, module)
        return value, module
    return None, None


def call_value(spec: dict[str, Any], record: Any, interp: Any, state: State | None,
                built: dict[str, Any] | None) -> Any:
    """`{ call = "dotted", args = [...] }`: what that tree function returns for the arguments;
    unknown where the release does not define it."""
    fn, module = dotted_object(interp, state, spec["call"]) if interp is not None and state is not None else (None, None)
    if fn is None or isinstance(fn, Unknown) or module is None:
        return Unknown(f"{spec['call']} (not in this release)", {f"runtime:{spec['call']}"})
    args = [spec_value(v, record, interp, state, built) for v in spec.get("args", [])]
    return interp.call(fn, args, {}, state, module)


def instance_of(spec: dict[str, Any], record: Any, interp: Any, state: State | None,
              built: dict[str, Any] | None = None) -> Any:
    """`{ class = "dotted", args = {...} }`: an instance of that tree class built with the arguments
    its constructor has a parameter for; unknown where the release does not define the class."""
    module_name, _, name = spec["class"].rpartition(".")
    if interp is None or state is None or not interp.store.module_file(module_name):
        return Unknown(f"{spec['class']} (not in this release)", {f"runtime:{spec['class']}"})
    module = interp.import_module(module_name, state)
    cls = interp.deref(module.globals.get(name), state) if isinstance(module, ModuleVal) else None
    if not isinstance(cls, ClassVal):
        return Unknown(f"{spec['class']} (not in this release)", {f"runtime:{spec['class']}"})
    fields = {n for n, _ in cls.dataclass_fields()} | (init_params(cls) or set())
    kwargs = {k: spec_value(v, record, interp, state, built) for k, v in spec.get("args", {}).items() if k in fields}
    return interp.call(cls, [], kwargs, state, module)


def init_params(cls: ClassVal) -> set[str] | None:
    found, init = cls.lookup("__init__")
    if not found or not isinstance(init, FuncVal):
        return None
    return {p[0] for p in init.ir["params"]}


def bare_instance(spec: dict[str, Any], record: Any, interp: Any, state: State | None,
                  built: dict[str, Any] | None = None) -> Any:
    """`{ class = "dotted", attributes = {...}, methods = [...] }`: an instance of that tree class
    whose constructor is not run, holding the given attributes, after each of the methods the
    release's class defines has run on it (the steps of Scheduler.__init__: init_tokenizer);
    unknown where the release does not define the class."""
    cls, module = dotted_object(interp, state, spec["class"]) if interp is not None and state is not None \
        else (None, None)
    if not isinstance(cls, ClassVal) or module is None or state is None:
        return Unknown(f"{spec['class']} (not in this release)", {f"runtime:{spec['class']}"})
    attrs = {k: spec_value(v, record, interp, state, built) for k, v in spec.get("attributes", {}).items()}
    instance = interp.new_obj(cls, state, attrs)
    for name in spec.get("methods", []):
        if isinstance(cls.lookup(name)[1], FuncVal):
            interp.call(interp.getattr(instance, name, state, module), [], {}, state, module)
    return instance
