"""evaluate: the attributes the analysed code writes on an object after it is built.

The serving phase hands SGLang's objects to the methods SGLang calls when batches arrive
(a model's attention layer to its attention backend). The object it hands is the one
startup built, but SGLang's own forward code may write to it first: DeepSeek's attention
builds its `attn_mha` layer with `kv_b_proj = None` and its `forward_prepare` sets it
before the backend is ever called. Such an attribute is not known when the method runs:
its value is the run's.

An attribute counts as written later when a function other than a constructor writes it
(`x.attr = ...`, `x.attr += ...`, `setattr(x, "attr", ...)`) on another object than its own
`self`, in the module of a class whose instances the model holds (the model's own code, its
layers, their quantization methods: the code that runs before the model calls out, unlike a
memory pool the backend calls, whose writes the call itself runs); or when a method of the object's own class (or
of a base in the tree) other than its constructor writes `self.attr`. The writes are found
by name in the lowered modules, without following which object a write reaches: an
attribute of that name is made not known, which costs findings, never adds one.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from flagscan.extract.reads_walk import nested_blocks
from flagscan.facts import ir
from flagscan.facts.ir import is_kind, view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter
    from flagscan.evaluate.interp.values import ClassVal

_CONSTRUCTION = frozenset({"__init__", "__new__", "__post_init__"})


class _Writes:
    """What one module's non-constructor functions write: attribute names on other objects,
    and per class the attributes its methods write on `self`."""

    __slots__ = ("others", "own")

    def __init__(self) -> None:
        self.others: set[str] = set()
        self.own: dict[str, set[str]] = {}


def _walk(body: list[Any], out: _Writes, owner: str | None, self_name: str | None, later: bool) -> None:
    for stmt in body:
        kind = stmt[0] if isinstance(stmt, list) and stmt else ""
        if kind == "def":
            func = view(ir.Def, stmt).func
            params = func.get("params") or []
            is_method = func.get("owner") is not None and params and params[0][2] == "pos"
            _walk(func.get("body", []), out, func.get("owner") or owner,
                  params[0][0] if is_method else self_name,
                  later or func.get("name") not in _CONSTRUCTION)
            continue
        if kind == "class":
            _walk(view(ir.ClassDef, stmt).cls.get("body", []), out, owner, self_name, later)
            continue
        if later:
            targets: list[Any] = []
            if kind == "assign":
                targets = [t for target in view(ir.Assign, stmt).targets for t in ir.target_nodes(target)]
            elif kind == "aug":
                targets = ir.target_nodes(view(ir.AugAssign, stmt).target)
            elif kind == "expr":
                call = view(ir.ExprStmt, stmt).value
                if is_kind(call, "call") and ir.name_of(view(ir.Call, call).func) == "setattr":
                    args = view(ir.Call, call).args
                    name = ir.const_str(args[1]) if len(args) >= 2 else None
                    if name is not None:
                        targets = [["a", args[0], name]]
            for t in targets:
                if not is_kind(t, "a"):
                    continue
                attr = view(ir.Attr, t)
                if self_name is not None and owner is not None and ir.name_of(attr.value) == self_name:
                    out.own.setdefault(owner, set()).add(attr.attr)
                else:
                    out.others.add(attr.attr)
        for block in nested_blocks(stmt):
            _walk(block, out, owner, self_name, later)


_CACHE: weakref.WeakKeyDictionary[Interpreter, dict[str, _Writes]] = weakref.WeakKeyDictionary()


def _module_writes(interp: Interpreter, name: str) -> _Writes:
    cache = _CACHE.setdefault(interp, {})
    found = cache.get(name)
    if found is None:
        module_ir = interp.store.get(name)
        found = cache[name] = _module_writes_of(module_ir) if module_ir is not None else _Writes()
    return found


def _module_writes_of(module_ir: dict[str, Any]) -> _Writes:
    out = _Writes()
    _walk(module_ir.get("body", []), out, None, None, False)
    return out


def written_later(interp: Interpreter, cls: ClassVal, modules: frozenset[str]) -> frozenset[str]:
    """The attributes of an instance of `cls` that the code of `modules` (those of the classes the
    built model holds: its forward runs before SGLang's call) may write after building it."""
    names: set[str] = set()
    for module in sorted(modules):
        names |= _module_writes(interp, module).others
    for c in cls.mro():
        names |= _module_writes(interp, c.module.name).own.get(c.name, set())
    return frozenset(names)
