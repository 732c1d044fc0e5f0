"""evaluate: expressions in the abstract interpreter (attributes, subscripts, literals, comprehensions)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import PLAIN, Dead, truth
from flagscan.evaluate.interp.builtins import method_of
from flagscan.evaluate.interp.envwrites import MUTATORS, mutator
from flagscan.evaluate.interp.state import (
    OPEN,
    State,
    join_states,
    join_values,
    key_needs,
    may_match,
    open_dict,
    partly_set_or,
)
from flagscan.evaluate.interp.values import (
    ANY_ATTRIBUTE,
    BoundMethod,
    Builtin,
    ClassVal,
    ConfigView,
    EnumMember,
    EnvView,
    ExcVal,
    External,
    Fresh,
    FuncVal,
    GenericAlias,
    LambdaVal,
    LoggerVal,
    Maybe,
    ModuleVal,
    Obj,
    Outside,
    OutsideAttr,
    PartlySet,
    SuperVal,
    Unknown,
    element_of,
    has_unknown,
    unknown_of,
)
from flagscan.facts import ir
from flagscan.facts.ir import Node, view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
    from flagscan.evaluate.interp.values import BuiltinFn
else:
    InterpreterParts = object  # the Protocol the part is checked against (parts.py); none at run time

# Unary operators on known numbers.
_UNARY: dict[str, Callable[[Any], Any]] = {"-": operator.neg, "+": operator.pos, "~": operator.invert}


class ExpressionsMixin(InterpreterParts):
    """Expressions of the Interpreter: attributes, subscripts, literals, comprehensions."""

    def eval_unmodelled(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        text = view(ir.UnmodelledExpr, node).text
        literal = _bytes_literal(text)
        if literal is not None:
            return literal
        return self.give_up(f"an expression flagscan does not model ({text[:80]})", module, line)

    def method_of(self, obj: Obj, attr: str, state: State) -> bool:
        """Whether `attr` of `obj` is a function its class defines (not an instance attribute)."""
        if attr in state.attrs(obj.oid):
            return False
        found, value = obj.cls.lookup(attr)
        return found and isinstance(value, FuncVal)

    def lacks(self, obj: Obj, attr: str, state: State) -> bool:
        """Whether reading `obj.attr` raises AttributeError in Python: neither the instance nor a
        class of its MRO holds it, no class of the MRO has `__getattr__`, every base is in the tree,
        and no write through a value not known (`_write_anywhere`) may have given it the attribute."""
        if attr in state.attrs(obj.oid) or attr.startswith("__") or attr in self.written_anywhere \
                or ANY_ATTRIBUTE in self.written_anywhere:
            return False
        mro = obj.cls.mro()
        if any(not (isinstance(b, ClassVal) or (isinstance(b, External) and b.path == "builtins.object"))
               for c in mro for b in c.bases):
            return False
        return not any(name in c.attrs for c in mro for name in (attr, "__getattr__", "__getattribute__"))

    def _partly_set_read(self, base: Obj, attr: str, value: PartlySet, state: State, module: ModuleVal) -> Any:
        """`obj.attr` where some paths set it: where set, what they set; elsewhere the class's own
        plain value (`class A: x = None`), else not known (AttributeError, or what `__getattr__` or
        an outside base gives)."""
        found, default = base.cls.lookup(attr)
        if found and (default is None or isinstance(default, (bool, int, float, str, tuple))):
            return partly_set_or(value, default, f"{base.cls.name}.{attr} set on some paths only")
        return Unknown(value.why, value.needs)

    def _outside_class_value(self, cls: ClassVal, attr: str) -> Any:
        """An attribute an outside base gives every class built on it, as rules/world.toml
        [values] describes it (`msgspec.Struct.__struct_fields__`: the field names, in order;
        0.5.23 watermarking/config.py iterates them). _NOTHING: not described."""
        for c in cls.mro():
            for b in c.bases:
                if isinstance(b, External) and self.world.values.get(f"{b.path}.{attr}") == "class.field_names":
                    return tuple(name for name, _spec in cls.dataclass_fields())
        return _NOTHING

    def eval_opaque_pattern(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        """A `match` pattern the lowering does not spell out (a sequence or mapping pattern):
        whether it matches is not known, nor what it captures."""
        pattern = view(ir.UnmodelledExpr, node).text   # ["opaque", pattern_text]
        return Unknown(f"case {pattern}", {f"runtime:match case {pattern}"})

    def eval_attribute(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        a = view(ir.Attr, node)
        return self.getattr(self.eval(a.value, state, module, line), a.attr, state, module, node)

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        base = self.deref(base, state)
        if isinstance(base, Fresh) and attr in _LIST_MUTATORS:
            base.forget()   # a method of the new list (`append`) may change what it holds
        if isinstance(base, Unknown) and _objects(base):
            # an attribute of one of several known records is that record's attribute (a None
            # option would raise AttributeError: that path does not go on)
            options = [o for o in base.options or () if o is not None]
            if any(self.method_of(o, attr, state) for o in options):
                # a method one option's class defines and another's lacks outright: on the path
                # where the object is the other one, Python raises AttributeError; that path does
                # not go on (0.5.10 `self.req_to_token_pool.mamba2_layer_cache(...)`, a pool with
                # or without mamba layers as the paths joined)
                options = [o for o in options if not self.lacks(o, attr, state)] or options
            values = [self.getattr(o, attr, state, module, node) for o in options]
            value = join_values(values, f"{base.why}.{attr}")
            if isinstance(value, Unknown) and base.needs:
                value = Unknown(value.why, value.needs | base.needs, value.options, value.truth)
            if isinstance(value, Unknown) and all(isinstance(v, Outside) for v in values):
                # outside code's objects, each of them
                value = (OutsideAttr(value.why, None, value.needs) if any(isinstance(v, OutsideAttr) for v in values)
                         else Outside(value.why, value.needs))
            return value
        if isinstance(base, Unknown) and _strings(base):
            # a method of one of a few known strings (`load_format.lower()` on "auto" or
            # "mistral"): each string's own, so the call maps the options
            value = join_values([self.builtins_attr(o, attr) for o in base.options or ()], f"{base.why}.{attr}")
            if isinstance(value, Unknown) and base.needs:
                value = Unknown(value.why, value.needs | base.needs, value.options, value.truth)
            return value
        if isinstance(base, Unknown):
            # an attribute of outside code's object is outside code's too
            if isinstance(base, Outside):
                return self.derived(base, f"{base.why}.{attr}", state)
            return Unknown(f"{base.why}.{attr}", base.needs)
        if isinstance(base, Obj):
            attrs = state.attrs(base.oid)
            if attr in attrs:
                value = attrs[attr]
                if isinstance(value, PartlySet):
                    return self._partly_set_read(base, attr, value, state, module)
                if isinstance(value, (list, dict, set)):
                    value, fresh = state.own(value)
                    if fresh:
                        state.writable(base.oid)[attr] = value
                return value
            if attr == "__class__":
                return base.cls
            found, value = base.cls.lookup(attr)
            if found:
                return self.bind(value, base, state, module)
            found, hook = base.cls.lookup("__getattr__")
            if found and isinstance(hook, FuncVal):
                return self.call(BoundMethod(hook, base), [attr], {}, state, module)
            given = self._outside_class_value(base.cls, attr)
            if given is not _NOTHING:
                return given
            if base.cls.has_outside_base() and base.oid not in self.handed:
                # neither the instance nor an analysed class has it: the outside base makes it
                # (pynccl_wrapper.py's `ncclUniqueId(ctypes.Structure)`: `internal` from `_fields_`)
                return OutsideAttr(f"{base.cls.name}.{attr}", base.oid)
            return Unknown(f"{base.cls.name}.{attr}")
        if isinstance(base, ClassVal):
            found, value = base.lookup(attr)
            if found:
                if isinstance(value, FuncVal) and value.kind == "classmethod":
                    return BoundMethod(value, base)
                return value
            if attr in ("__name__", "__qualname__"):
                return base.name
            if attr == "__module__":
                return base.module.name
            if attr == "__annotations__":
                fields = base.value_fields if base.value_fields is not None else (base.ir or {}).get("fields", [])
                return {entry[0]: Unknown(f"annotation of {entry[0]}") for entry in fields}
            if attr == "__dict__":
                return dict(base.attrs)
            if attr == "__mro__":
                return tuple(base.mro())
            if attr == "__new__":
                # no __new__ of its own: object.__new__, an instance that __init__ has not run on
                # (shm_broadcast.py `self = MessageQueue.__new__(MessageQueue)`)
                return Builtin(f"{base.name}.__new__", object_method("__new__"))
            return Unknown(f"{base.name}.{attr}")
        if isinstance(base, ModuleVal):
            if attr in base.globals:
                return self.deref(base.globals[attr], state)
            sub = f"{base.name}.{attr}"
            if self.store.module_file(sub) is not None:
                return self.import_module(sub, state)
            hook = base.globals.get("__getattr__")
            if isinstance(hook, FuncVal):  # PEP 562 module __getattr__
                return self.call(hook, [attr], {}, state, base)
            return Unknown(sub)
        if isinstance(base, External):
            if base.path == "builtins.object" and attr in ("__getattribute__", "__setattr__", "__init__", "__new__", "__delattr__"):
                return Builtin(f"object.{attr}", object_method(attr))
            written = self.external_writes.get(f"{base.path}.{attr}", _NOTHING)
            return self.world.external_attr(base, attr) if written is _NOTHING else written
        if isinstance(base, ConfigView):
            return self.world.config_attr(base, attr)
        if isinstance(base, EnvView):
            return self.world.env_attr(attr)
        if isinstance(base, EnumMember):
            if attr == "name":
                return base.name
            if attr == "value":
                return base.value
            if isinstance(base.cls, ClassVal):
                found, value = base.cls.lookup(attr)
                if found and isinstance(value, FuncVal):
                    if value.kind == "property":
                        return self.call(value, [base], {}, state, module)
                    if value.kind == "classmethod":
                        return BoundMethod(value, base.cls)
                    if value.kind == "staticmethod":
                        return value
                    return BoundMethod(value, base)
                if found:
                    return value
            return Unknown(f"{base.owner}.{base.name}.{attr}")
        if isinstance(base, SuperVal):
            for cls in base.classes:
                if attr in cls.attrs:
                    return self.bind(cls.attrs[attr], base.obj, state, module) if isinstance(base.obj, Obj) else cls.attrs[attr]
            if attr in ("__setattr__", "__getattribute__", "__init__", "__new__", "__delattr__"):
                method = object_method(attr)
                target = base.obj

                def through(i: InterpreterParts, s: State, a: list[Any], k: dict[str, Any], m: ModuleVal,
                            l: int) -> Any:
                    if attr == "__init__" and isinstance(target, Obj):
                        i.hand_over(target, a, k)   # an outside base's __init__ may keep what it is given
                    return method(i, s, [target, *a], k, m, l)
                return Builtin(f"object.{attr}", through)
            return Unknown(f"super().{attr}")
        if isinstance(base, BoundMethod) and attr == "__func__":
            return base.func
        if isinstance(base, LoggerVal):
            written = self.external_writes.get(f"{base.path}.{attr}", _NOTHING)
            if written is not _NOTHING:
                return written
            if attr in _LOGGER_METHODS:
                return Builtin(f"logger.{attr}", _logger_method(attr))
            return Unknown(f"{base.path}.{attr}", {f"runtime:{base.path}.{attr}"})
        if isinstance(base, PLAIN) or type(base).__name__ in ("Match", "Pattern"):
            return self.builtins_attr(base, attr)
        if isinstance(base, ExcVal) and attr == "args":
            return (base.message,)
        if isinstance(base, FuncVal) and attr in base.attrs:
            return base.attrs[attr]
        if isinstance(base, FuncVal) and attr in ("__name__", "__qualname__"):
            return base.ir["name"] if attr == "__name__" else (
                f"{base.owner.name}.{base.ir['name']}" if base.owner is not None else base.ir["name"])
        if isinstance(base, FuncVal) and attr == "__module__":
            return base.module.name
        if isinstance(base, Builtin) and base.name == "dict" and attr == "fromkeys":
            return Builtin("dict.fromkeys", _dict_fromkeys)
        return Unknown(f"{type(base).__name__}.{attr}")

    def derived(self, base: Outside, why: str, state: State) -> Unknown:
        """What an attribute, item, element or call result of outside code's object `base` is:
        outside code's too, unless `base` is an attribute of an instance that holds (or whose
        outside base was given) the model's objects, which it may give back."""
        if isinstance(base, OutsideAttr) and (base.oid is None or base.oid in self.handed
                                              or _holds_model_objects(state.attrs(base.oid))):
            return Unknown(why, base.needs)
        return Outside(why, base.needs)

    def builtins_attr(self, base: Any, attr: str) -> Any:
        if base is self.world.env:
            if attr in MUTATORS:
                return mutator(self, base, attr)
        return method_of(base, attr)

    def eval_unary(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        op, operand = view(ir.UnaryOp, node)
        value = self.eval(operand, state, module, line)
        if op == "not":
            t = truth(value)
            if t is None:
                u = unknown_of(value, why=f"not {self._text(operand)}")
                if isinstance(value, Unknown) and getattr(value, "truth", None) is not None:
                    u.truth = not value.truth
                return u
            return not t
        if isinstance(value, Unknown) or not isinstance(value, (int, float)):
            return unknown_of(value, why=f"{op} unknown")
        return _UNARY[op](value)

    def eval_conditional(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        test_ir, body, orelse = view(ir.IfExp, node)
        test = self.eval(test_ir, state, module, line)
        t = truth(test)
        if t is True:
            return self.eval(body, state, module, line)
        if t is False:
            return self.eval(orelse, state, module, line)
        # `a if test else b` on an unknown test: each side on its own path (what either
        # writes or raises happens on that path only), then both joined, as for `if`
        text = self._text(test_ir)
        needs = test.needs if isinstance(test, Unknown) else frozenset()
        other = self.assume(state, text, needs)
        self.narrow(test_ir, state, module, True)
        self.narrow(test_ir, other, module, False)
        paths = []
        for s, branch in ((state, body), (other, orelse)):
            try:
                paths.append((s, self.eval(branch, s, module, line)))
            except Dead:
                pass
        if other.raised:
            state.raised.extend(other.raised)
            other.raised = []
        if not paths:
            raise Dead()
        joined = join_states([s for s, _ in paths], text)
        state.adopt(joined)
        value = paths[0][1] if len(paths) == 1 else join_values([v for _, v in paths], text)
        if isinstance(value, Unknown) and needs and len(paths) > 1:
            value = Unknown(value.why, value.needs | needs, value.options, value.truth)
        return value

    def eval_subscript(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        sub = view(ir.Subscript, node)
        base = self.eval(sub.value, state, module, line)
        index_ir = sub.item
        if index_ir[0] == "slice":
            parts = [self.eval(p, state, module, line) if p is not None else None for p in view(ir.Slice, index_ir)]
            if isinstance(base, (list, tuple, str)) and not any(isinstance(p, Unknown) for p in parts):
                return base[slice(*parts)]
            return unknown_of(base, *parts, why=self._text(node))
        index = self.eval(index_ir, state, module, line)
        return self.subscript(base, index, state, module, node)

    def eval_slice(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        """`lo:hi:step` inside a subscript of several indices (`out[:, a:b]`): a slice object
        when its bounds are known (what a subscript of a plain value can use), else unknown."""
        parts = [self.eval(p, state, module, line) if p is not None else None for p in view(ir.Slice, node)]
        if any(has_unknown(p) for p in parts):
            return unknown_of(*parts, why="a slice with unknown bounds")
        return slice(*parts)

    def eval_yield(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        # A statement-level yield is run by the frame that drives the generator (generators.py);
        # one inside a larger expression (`x = (yield) + 1`) is not followed.
        return self.give_up("a yield inside an expression", module, line, "what the generator is sent")

    def subscript(self, base: Any, index: Any, state: State, module: ModuleVal, node: Node | None = None) -> Any:
        if isinstance(base, Outside):
            return self.derived(base, self._text(node) if node else f"{base.why}[...]", state)
        if isinstance(base, External) and f"{base.path}[?]" in self.external_writes:
            return Unknown(f"{base.path}[...] (written under a key not known)", {f"runtime:{base.path}"})
        if isinstance(base, External) and _hashable_key(index) and _item_path(base, index) in self.external_writes:
            return self.external_writes[_item_path(base, index)]
        if isinstance(base, dict) and isinstance(index, Unknown) and base and all(
                isinstance(v, Outside) if k is OPEN else _outside(v.value if isinstance(v, Maybe) else v)
                for k, v in base.items()):
            # any entry, each outside code's object (a cache of ctypes libraries under a path not known)
            needs = frozenset().union(*(getattr(v, "needs", frozenset()) for v in base.values()))
            why = self._text(node) if node else "subscript"
            if any(isinstance(v.value if isinstance(v, Maybe) else v, OutsideAttr) for v in base.values()):
                return OutsideAttr(why, None, needs | index.needs)   # what it holds may be the model's
            return Outside(why, needs | index.needs)
        if isinstance(base, EnvView):
            return self.world.env_get(index)  # open: a missing variable is unknown, not a KeyError
        if isinstance(base, ConfigView):
            return self.world.config_item(base, index)
        if isinstance(base, Obj):
            found, fn = base.cls.lookup("__getitem__")
            if found:
                return self.call(BoundMethod(fn, base), [index], {}, state, module)
            return Unknown(self._text(node) if node else "subscript")
        if isinstance(base, ClassVal) and base.is_enum and isinstance(index, str):
            member = base.attrs.get(index)
            if isinstance(member, EnumMember):
                return member
            exc = ExcVal("KeyError", index)
            state.raised.append((state.fork(), exc))
            raise Dead()
        if isinstance(base, (ClassVal, External, Builtin)) and not isinstance(base, Obj):
            return GenericAlias(base, index if isinstance(index, tuple) else (index,))
        if isinstance(base, Unknown) and base.options is not None and not isinstance(index, Unknown):
            values = [self.subscript(o, index, state, module, node) for o in base.options]
            return join_values(values, base.why)
        if isinstance(base, Fresh) and base.known and not isinstance(index, slice):
            return base.element   # every element is like it (an IndexError is not followed)
        if isinstance(base, (list, tuple)) and isinstance(index, Unknown) and base:
            element = _any_element(base, index, self._text(node) if node else "subscript")
            if element is not None:
                return element
        if isinstance(base, Unknown) or isinstance(index, Unknown) or not isinstance(base, PLAIN):
            if isinstance(base, (ClassVal, External, Builtin, GenericAlias)):
                return GenericAlias(base, index if isinstance(index, tuple) else (index,))
            return unknown_of(base, index, why=self._text(node) if node else "subscript")
        if isinstance(base, dict) and may_match(base, index):
            # a key holding values not known that may equal one of the dict's: one of its
            # values, or a KeyError, as those values decide
            return Unknown(self._text(node) if node else "subscript", key_needs(index))
        if isinstance(base, dict) and OPEN in base and not _has_key(base, index):
            if isinstance(base[OPEN], Outside):
                return OutsideAttr(self._text(node) if node else "subscript", None, base[OPEN].needs) \
                    if isinstance(base[OPEN], OutsideAttr) else Outside(self._text(node) if node else "subscript",
                                                                        base[OPEN].needs)
            return unknown_of(base[OPEN], why=self._text(node) if node else "subscript")
        if isinstance(base, dict) and isinstance(index, External) and not _has_key(base, index):
            # another dotted path may name one of the keys (`torch.float` is `torch.float32`):
            # one of the values, or a KeyError, as the outside object decides
            held = tuple(v.value if isinstance(v, Maybe) else v for v in base.values())
            return Unknown(self._text(node) if node else "subscript", {f"runtime:{index.path}"},
                           held if 0 < len(held) <= 8 and not has_unknown(held) else None)
        try:
            value = base[index]  # type: ignore[index]  # a number or None raises TypeError, handled below
        except (KeyError, IndexError) as exc:
            # a key the known dict does not hold, an index past the known sequence: the program
            # raises here, and its own `except KeyError:` decides (spec_info.py's from_string, which
            # register_speculative_algorithm calls to learn that a name is not registered yet)
            raised = ExcVal(type(exc).__name__, index)
            self.record(state, "raise", module, self.line, value=raised.type_name, message=raised.message)
            state.raised.append((state.fork(), raised))
            raise Dead() from None
        except TypeError as exc:
            if base is None:
                # None is no other kind: Python raises here (0.5.10 piecewise_cuda_graph_runner.py
                # replay_prepare's `buffers.mrope_positions[:, n:m]`, None for a text-only model, on
                # the paths where the batch holds mrope positions)
                raised = ExcVal("TypeError", "'NoneType' object is not subscriptable")
                self.record(state, "raise", module, self.line, value=raised.type_name, message=raised.message)
                state.raised.append((state.fork(), raised))
                raise Dead() from None
            # Python raises here too, but a value flagscan holds as a plain one may stand for another
            # kind (a tensor indexed by a tuple): not followed
            return self.give_up(f"{type(exc).__name__} in {self._text(node) if node else 'a subscript'}", module)
        # A key present on some paths only is read where code found it present.
        if isinstance(value, Maybe) and isinstance(base, dict):
            return value.value
        if isinstance(base, (list, tuple)) and isinstance(index, int) and not isinstance(index, bool):
            return _at_position(base, index, value, self._text(node) if node else "subscript")
        return value

    def eval_list(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        return self._elements(view(ir.Elements, node).elts, state, module, line)

    def eval_tuple(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        items = self._elements(view(ir.Elements, node).elts, state, module, line)
        return tuple(items) if isinstance(items, list) else items

    def eval_set(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        items = self._elements(view(ir.Elements, node).elts, state, module, line)
        if isinstance(items, list) and not has_unknown(items):
            try:
                return set(items)
            except TypeError:
                return Unknown("unhashable set")
        return unknown_of(*items, why="set with unknown elements") if isinstance(items, list) else items

    def _elements(self, elements: list[Any], state: State, module: ModuleVal, line: int) -> Any:
        out: list[Any] = []
        for e in elements:
            if isinstance(e, list) and e and e[0] == "*" and len(e) == 2 and isinstance(e[1], list):
                _star, starred = e   # ["*", expr]
                items = self.iterate(self.eval(starred, state, module, line), state, module)
                if items is None:
                    return Unknown("starred unknown")
                out.extend(items)
            else:
                out.append(self.eval(e, state, module, line))
        return out

    def eval_dict(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        out: dict[Any, Any] = {}
        for key_ir, value_ir in view(ir.DictExp, node).items:
            value = self.eval(value_ir, state, module, line)
            if key_ir is None:
                if isinstance(value, dict):
                    out.update(value)
                elif isinstance(value, Unknown):
                    return unknown_of(value, why="dict merge with unknown")
                else:
                    return self.give_up(f"a ** merge of a {type(value).__name__}", module, line)
                continue
            key = self.eval(key_ir, state, module, line)
            if isinstance(key, Unknown):
                return Unknown("dict with unknown key")
            try:
                out[key] = value
            except TypeError:
                return self.give_up("an unhashable dict key", module, line)
        return out

    def eval_fstring(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        parts: list[str] = []
        unknown = None
        for part in view(ir.FString, node).parts:
            if isinstance(part, str):
                parts.append(part)
                continue
            _fv, expr, conversion = part   # ["fv", expr, conversion | None]
            value = self.eval(expr, state, module, line)
            if isinstance(value, Unknown) or has_unknown(value) or not isinstance(value, PLAIN + (EnumMember,)):
                unknown = unknown_of(value, why="") if unknown is None else unknown
                parts.append("{" + self._text(expr) + "}")
                continue
            if isinstance(value, EnumMember):
                value = f"{value.owner}.{value.name}"
            parts.append(repr(value) if conversion == "r" else str(value))
        text = "".join(parts)
        if unknown is not None:
            return Unknown(text, unknown.needs)
        return text

    def eval_comprehension(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        kind, elt, gens = view(ir.Comprehension, node)
        results: list[Any] = []
        saved = state.locals
        state.locals = dict(saved)
        needs: set[str] = set()
        try:
            ok = self._comp(gens, 0, elt, kind, state, module, line, results, needs)
        finally:
            state.locals = saved
        if not ok:
            return self._comp_over_unknown(kind, elt, gens, state, module, line, frozenset(needs))
        if kind == "dict":
            try:
                return dict(results)
            except TypeError:
                return Unknown("dict comprehension")
        if kind == "set":
            try:
                return set(results)
            except TypeError:
                return Unknown("set comprehension")
        return results

    def _comp_over_unknown(self, kind: str, elt: Any, gens: list[Any], state: State, module: ModuleVal,
                           line: int, needs: frozenset[str] = frozenset()) -> Any:
        """A list comprehension over values not known is a new list (Fresh); where its element is
        outside code's object (a call of outside code, or of an analysed function that returns one,
        or an item or attribute of one), each element is (0.5.16 memory_pool.py MHATokenToKVPool:
        `self.k_buffer = [torch.zeros(...) for _ in range(self.layer_num)]`; 0.5.23: `_zeros(shape)`,
        a local function calling torch.zeros, and `[buf[0, :rows] for buf in fused]`). The element is
        computed on a copy of the path, with the loop variable an element of the iterable: one like
        every element where the iterable says so, else not known. `needs`: what the iterable or
        filter not known needs (the new value's contents need it too: a list of a batch's items
        is a fact of the batch)."""
        if kind == "dict":
            # a new dict whose keys are not known (0.5.10 rotary_embedding/factory.py: `extra_kwargs
            # = {k: v for k, v in rope_scaling.items() if ...}`, then `extra_kwargs["truncate"] = ...`)
            return {OPEN: Unknown("an entry of a dict comprehension over values not known", needs)}
        if kind != "list":
            return Unknown("comprehension over unknown", needs)
        fresh = Fresh("comprehension over unknown", needs)
        if not (isinstance(elt, list) and elt and elt[0] in ("call", "sub", "a")) or len(gens) != 1:
            return fresh
        fork = state.fork()
        fork.locals = dict(state.locals)
        try:
            func = self.deref(self.eval(view(ir.Call, elt).func, fork, module, line), fork) if elt[0] == "call" else None
            target, iter_ir, ifs = gens[0]
            if isinstance(func, ClassVal) and not ifs:
                return self._constructed_over_unknown(elt, target, iter_ir, fresh, state, module, line)
            if elt[0] == "call" and not isinstance(func, (External, FuncVal)):
                return fresh
            iterable = self.eval(iter_ir, fork, module, line)
            each = iterable.element if isinstance(iterable, Fresh) and iterable.known \
                else Unknown("an element of values not known")
            self.assign(target, each, fork, module, line)
            element = self.eval(elt, fork, module, line)
        except Dead:
            return fresh
        if isinstance(element, Outside) or (isinstance(element, Unknown) and element.needs
                                            and not isinstance(element, Fresh)):
            fresh.element, fresh.known = element, True
        return fresh

    def _constructed_over_unknown(self, elt: Node, target: Node, iter_ir: Node, fresh: Fresh, state: State,
                                  module: ModuleVal, line: int) -> Fresh:
        """`[Block(...) for i in range(depth)]` with `depth` not known: with no element nothing is
        built; with some, the constructor runs, and what it raises or writes happens on that path
        (0.5.14 mimo_vl.py MiMoVisionTransformer: each block builds a VisionAttention that refuses
        fa3 on Blackwell). The constructor runs once, for an element not known, under the
        assumption that there is one, which needs what the iterable's length needs."""
        raw = self.eval(iter_ir, state.fork(), module, line)
        text = self._text(iter_ir)
        what = f"the comprehension over {text} has an element"
        other = self.assume(state, what, raw.needs if isinstance(raw, Unknown) else frozenset())
        saved = state.locals
        state.locals = dict(saved)
        alive = [other]
        try:
            each = raw.element if isinstance(raw, Fresh) and raw.known else element_of(raw, text)
            self.assign(target, each, state, module, line)
            self.eval(elt, state, module, line)
            alive.insert(0, state)
        except Dead:
            pass
        finally:
            state.locals = saved
        if other.raised:
            state.raised.extend(other.raised)
            other.raised = []
        state.adopt(join_states(alive, what))
        return fresh

    def _comp(self, gens: list[Any], i: int, elt: Any, kind: str, state: State, module: ModuleVal, line: int,
              results: list[Any], needs: set[str]) -> bool:
        """The comprehension's elements into `results`; False where an iterable or a filter is not
        known (what it needs added to `needs`)."""
        if i == len(gens):
            if kind == "dict":
                key_ir, value_ir = elt
                results.append((self.eval(key_ir, state, module, line), self.eval(value_ir, state, module, line)))
            else:
                results.append(self.eval(elt, state, module, line))
            return True
        target, iter_ir, ifs = gens[i]
        iterable = self.eval(iter_ir, state, module, line)
        items = self.iterate(iterable, state, module)
        if items is None:
            needs.update(getattr(iterable, "needs", ()))
            return False
        for item in items[:5000]:
            # an element present on some paths only (a key of a dict a branch wrote): the loop
            # variable is its value, and what it makes is present on those paths only
            present = isinstance(item, Maybe)
            self.assign(target, item.value if present else item, state, module, line)
            keep = True
            for cond in ifs:
                test = self.eval(cond, state, module, line)
                t = truth(test)
                if t is None:
                    needs.update(getattr(test, "needs", ()))
                    return False
                if not t:
                    keep = False
                    break
            start = len(results)
            if keep and not self._comp(gens, i + 1, elt, kind, state, module, line, results, needs):
                return False
            if present:
                results[start:] = [_on_some_paths(r, kind) for r in results[start:]]
        return True

    def eval_lambda(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        closure = dict(getattr(state, "closure", None) or {})
        closure.update(self.function_scope(state, module) or {})
        params, body = view(ir.Lambda, node)
        return LambdaVal(module, params, body, closure)

    def eval_walrus(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        name, expr = view(ir.Walrus, node)
        value = self.eval(expr, state, module, line)
        state.locals[name] = value
        return value


_NOTHING = object()


def _on_some_paths(result: Any, kind: str) -> Any:
    """A comprehension's result from an element present on some paths only: a list element or
    a dict entry present on those paths; a set's element is not known (a set has no such element)."""
    if kind == "dict":
        key, value = result
        return key, value if isinstance(value, Maybe) else Maybe(value)
    if kind == "set":
        return Unknown("a set element made on some paths only", frozenset(getattr(result, "needs", ())))
    return result if isinstance(result, Maybe) else Maybe(result)
# the methods of a list that change what it holds (a Fresh value is a new list)
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                            "__setitem__", "__delitem__", "__iadd__", "__imul__"})


def _objects(value: Unknown) -> bool:
    """One of a few known instances (or None): what an attribute of it can be is theirs."""
    options = value.options
    return options is not None and 0 < len(options) <= 8 and any(isinstance(o, Obj) for o in options) \
        and all(isinstance(o, Obj) or o is None for o in options)


def _outside(value: Any) -> bool:
    """Outside code's object, or one that stands for a fact not given: no object of the model."""
    return isinstance(value, (Outside, External)) or (isinstance(value, Unknown) and bool(value.needs))


def _hashable_key(key: Any) -> bool:
    if isinstance(key, Unknown):
        return False
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _item_path(base: External, key: Any) -> str:
    """The key of `base[key]` among the interpreter's writes to outside objects."""
    return f"{base.path}[{key!r}]"


def model_value(value: Any) -> bool:
    """Whether `value` may be (or hold) an object of the model: anything but a plain scalar, an
    outside object, or an unknown that stands for outside code's object or a fact not given."""
    if value is None or isinstance(value, (str, bytes, int, float, bool, External, Outside, EnumMember)):
        return False
    return not (isinstance(value, Unknown) and value.options is None and value.needs)


def _holds_model_objects(attrs: dict[str, Any]) -> bool:
    """Whether an instance's attributes hold objects of the model (instances, containers) that
    its outside base may hand back (torch.nn.Module's `modules()` yields the submodules)."""
    return any(isinstance(v, (Obj, list, dict, set)) for v in attrs.values())


def _strings(value: Unknown) -> bool:
    """One of a few known strings."""
    options = value.options
    return options is not None and 0 < len(options) <= 8 and all(isinstance(o, str) for o in options)


def _has_key(d: dict[Any, Any], key: Any) -> bool:
    try:
        return key in d
    except TypeError:
        return False


def object_method(name: str) -> BuiltinFn:
    """object.__getattribute__ / object.__setattr__: attribute access without the
    class's own __getattr__ / __setattr__ hooks."""
    def call(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
        if name == "__getattribute__" and len(args) == 2 and isinstance(args[0], Obj):
            attrs = state.attrs(args[0].oid)
            if args[1] in attrs:
                value = attrs[args[1]]
                if isinstance(value, (list, dict, set)):
                    value, fresh = state.own(value)
                    if fresh:
                        state.writable(args[0].oid)[args[1]] = value
                return value
            found, value = args[0].cls.lookup(args[1])
            return interp.bind(value, args[0], state, module) if found else Unknown(f"{args[1]} unset")
        if name == "__setattr__" and len(args) == 3 and isinstance(args[0], Obj):
            interp.setattr(args[0], args[1], args[2], state, module, line, raw=True)
            return None
        if name == "__new__":
            if args and isinstance(args[0], ClassVal):
                return interp.new_obj(args[0], state)
            return Unknown("object.__new__ of a class not known", getattr(args[0], "needs", ()) if args else ())
        return None
    return call


def _dict_fromkeys(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
                   line: int) -> Any:
    """dict.fromkeys(keys, value=None): each key once, all holding `value`; keys not known
    make a dict whose keys are not known (any key may be there, holding `value`)."""
    value = args[1] if len(args) > 1 else kwargs.get("value")
    keys = interp.iterate(args[0], state, module) if args else None
    if keys is None or any(isinstance(k, (Unknown, Maybe)) for k in keys):
        out: dict[Any, Any] = {}
        open_dict(out, value, getattr(args[0], "needs", frozenset()) if args else frozenset())
        return out
    try:
        return dict.fromkeys(keys, value)
    except TypeError:   # a key that cannot be hashed: Python raises; not followed
        return interp.give_up("dict.fromkeys of a key that cannot be hashed", module, line)


def _bytes_literal(text: str) -> bytes | None:
    """The value of a bytes literal's source text (the lowering keeps bytes out of its JSON IR
    as an unmodelled expression with its text: `b"GGUF"`, `b"\\x00"`), else None."""
    if not text[:3].lower().lstrip("r").startswith("b"):
        return None
    import ast

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, bytes) else None


# logging.Logger's methods (Python's standard library); any other attribute is the logger's state
_LOGGER_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "setLevel",
    "isEnabledFor", "getEffectiveLevel", "getChild", "addHandler", "removeHandler", "hasHandlers",
    "addFilter", "removeFilter", "filter", "handle", "findCaller", "makeRecord", "callHandlers",
})


def _logger_method(level: str) -> BuiltinFn:
    def log(interp: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
            line: int) -> Any:
        if level in ("warning", "warn", "info", "error", "debug", "critical", "exception"):
            message = args[0] if args else ""
            if len(args) > 1 and isinstance(message, str) and not has_unknown(args[1:]):
                try:
                    message = message % tuple(args[1:])
                except (TypeError, ValueError):
                    pass
            interp.record(state, "log", module, line, level=level, message=message)
        elif level in _LOGGER_ANSWERS:
            # what the logger's configuration answers (`isEnabledFor(logging.DEBUG)`): not given
            return Unknown(f"logger.{level}(...)", {f"runtime:logging.Logger.{level}"})
        return None
    return log


# the Logger methods whose result is the logging configuration's answer, not None
_LOGGER_ANSWERS = frozenset({"isEnabledFor", "getEffectiveLevel", "getChild", "hasHandlers", "filter",
                             "findCaller", "makeRecord"})


def _at_position(seq: list[Any] | tuple[Any, ...], index: int, value: Any, why: str) -> Any:
    """`seq[index]` where elements before it, or it, exist on some paths only (a list two branches
    appended to differently): on each path one of the elements from that position on (counted
    from the end: up to it), each as it is where present."""
    if index >= 0:
        if not any(isinstance(e, Maybe) for e in seq[:index + 1]):
            return value
        candidates = seq[index:]
    else:
        if not any(isinstance(e, Maybe) for e in seq[index:]):
            return value
        candidates = seq[:len(seq) + index + 1]
    return join_values([e.value if isinstance(e, Maybe) else e for e in candidates], why)


def _any_element(seq: list[Any] | tuple[Any, ...], index: Unknown, why: str) -> Any:
    """`seq[i]`, i not known, where every element is outside code's object or stands for a fact
    not given (0.5.16 memory_pool.py's `self.k_buffer[layer_id]`, each a `torch.zeros(...)`): any
    element, so a store into it is what a store into each would be. None: not decided here."""
    elements = [e.value if isinstance(e, Maybe) else e for e in seq]
    if not all(isinstance(e, Outside) or (isinstance(e, Unknown) and e.needs) for e in elements):
        return None
    needs = frozenset().union(*(e.needs for e in elements)) | index.needs
    return Outside(why, needs) if all(type(e) is Outside for e in elements) else Unknown(why, needs)
