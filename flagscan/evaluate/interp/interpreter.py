"""evaluate: an abstract interpreter of lowered SGLang code with three-valued branching.

Known values are plain Python values; what depends on facts not given is an
`Unknown`. A branch on an unknown test runs both sides on forked states and joins
them: a setting that differs between the sides becomes unknown (with the values
it may take) and never a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The parts of the class, one mixin a stage of evaluation.
from flagscan.evaluate.interp import builtins, envwrites
from flagscan.evaluate.interp.base import Budget, Dead
from flagscan.evaluate.interp.calls import CallsMixin
from flagscan.evaluate.interp.expressions import (
    ExpressionsMixin,
    _has_key,
    _hashable_key,
    _item_path,
    _outside,
)
from flagscan.evaluate.interp.generators import GeneratorsMixin
from flagscan.evaluate.interp.giveup import Stop, bound, give_up
from flagscan.evaluate.interp.operators import OperatorsMixin
from flagscan.evaluate.interp.state import (
    OPEN,
    Event,
    State,
    join_states,
    join_values,
    key_needs,
    may_match,
    open_dict,
)
from flagscan.evaluate.interp.statements import StatementsMixin
from flagscan.evaluate.interp.values import (
    BoundMethod,
    ClassVal,
    ConfigView,
    EnumMember,
    EnvView,
    ExcVal,
    External,
    Fresh,
    FuncVal,
    GeneratorVal,
    LazyImport,
    LoggerVal,
    Maybe,
    ModuleVal,
    Obj,
    Outside,
    OutsideAttr,
    Unknown,
    unknown_of,
)
from flagscan.facts import ir
from flagscan.facts.ir import view

if TYPE_CHECKING:
    from flagscan.evaluate.world import World
    from flagscan.extract.irstore import ModuleStore


# The evaluator of each expression kind (facts/ir.py), named after what it computes.
EVAL = {kind: f"eval_{name}" for kind, name in {
    "unk": "unmodelled", "opaque": "opaque_pattern", "a": "attribute", "un": "unary", "ifx": "conditional",
    "sub": "subscript", "slice": "slice", "yield": "yield", "list": "list", "tuple": "tuple", "set": "set",
    "dict": "dict", "fstr": "fstring", "comp": "comprehension", "lambda": "lambda", "walrus": "walrus",
    "bin": "binary", "bool": "boolean", "cmp": "compare", "call": "call"}.items()}


class Interpreter(StatementsMixin, ExpressionsMixin, OperatorsMixin, CallsMixin, GeneratorsMixin):
    """Executes lowered modules from a ModuleStore under a world of facts."""

    def __init__(self, store: ModuleStore, world: World, *, max_depth: int = 40, call_budget: int = 400_000,
                 declarations: dict[str, Any] | None = None) -> None:
        self.store = store
        self.world = world  # hardware, env, model, primitives
        self.modules: dict[str, ModuleVal] = {}
        self.import_effects: dict[str, bool] = {}  # module -> whether importing it runs tree code
        # The heap objects each module's import made, as the import left them (import_module).
        self.imported: dict[str, dict[int, dict[str, Any]]] = {}
        self.builtins = builtins.table(self)
        self.max_depth = max_depth
        self.depth = 0
        self.steps = 0
        self.call_budget = call_budget
        self.next_oid = 1
        self.notes: list[str] = []
        self.current_module: ModuleVal | None = None
        self.stack: list[tuple[str, Any]] = []
        # the call sites of the functions being run (caller module, line, function, conditions)
        self.sites: list[tuple[ModuleVal, int, str, tuple[str, ...]]] = []
        # Attributes of dataclass records just before __post_init__ (the parsed input).
        self.snapshots: dict[int, dict[str, Any]] = {}
        # What each assumed (unknown) test needed: a value joined from paths that differ
        # only by such assumptions needs the same facts.
        self.assumed_needs: dict[str, frozenset[str]] = {}
        # The names each function's body may bind (calls.py _rebound_names), by its IR.
        self.rebound: dict[int, tuple[dict[str, Any], frozenset[str]]] = {}
        self.declarations = declarations or {}
        self.declare_functions = set(self.declarations.get("functions", []))
        import os as _os
        self.trace = bool(_os.environ.get("FLAGSCAN_TRACE"))
        # Where the interpreter could not follow the code (see giveup.py), and the
        # statement being run, for the location of a give-up inside an expression.
        self._stops: list[Stop] = []
        self.line = 0
        self.at: ModuleVal | None = None
        # Attributes of outside objects the analysed code assigned (`torch.x.y = v`), and entries of
        # outside mappings (`ALL_ATTENTION_FUNCTIONS["sglang"] = f`, under "path[key]").
        self.external_writes: dict[str, Any] = {}
        # Instances whose outside base was given what may be the model's objects (CallsMixin.hand_over).
        self.handed: set[int] = set()
        # Attribute names written through a value not known (`_write_anywhere`): any object may hold them.
        self.written_anywhere: set[str] = set()
        # objects an outside base may have given any attribute (a register call under a name not known)
        self.open_attrs: set[int] = set()
        # What a statement-level `yield` does in the generator frame being run (generators.py).
        self._sinks: list[Any] = []
        # The locals of the callers of the function being run (innermost last), for `forget`.
        self.frames: list[dict[str, Any]] = []

    @property
    def stops(self) -> list[Stop]:
        """Every place analysis stopped, once each, sorted."""
        return sorted(set(self._stops), key=lambda s: (s.location, s.construct, s.what))

    def give_up(self, construct: str, module: ModuleVal | None = None, line: int = 0,
                what: str = "its value", needs: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Unknown:
        """The interpreter cannot follow `construct`: a Stop (raises under FLAGSCAN_STRICT=1)
        and the Unknown that stands for what it would have computed."""
        module = module or self.at or self.current_module
        path = module.path if module is not None else "?"
        give_up(self._stops, construct, f"{path}:{line or self.line}", what)
        return Unknown(f"{construct} (not followed)", needs)

    def assume(self, state: State, text: str, needs: frozenset[str] = frozenset()) -> State:
        """Split `state` on a test the analysis cannot decide: `state` goes on assuming `text`,
        the returned fork assuming `not (text)`; what deciding the test needs is recorded for
        both, so a finding on either path names it."""
        other = state.fork()
        other.assumptions = other.assumptions + (f"not ({text})",)
        state.assumptions = state.assumptions + (text,)
        if needs:
            self.assumed_needs[text] = self.assumed_needs.get(text, frozenset()) | needs
            self.assumed_needs[f"not ({text})"] = self.assumed_needs[text]
        return other

    def bound(self, limit: str, module: ModuleVal | None = None, line: int = 0,
              what: str = "its value", needs: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Unknown:
        """Analysis stops at one of flagscan's own limits (`limit`: call depth, recursion
        levels, loop passes, the step budget): a Stop reported as a give-up is, but never
        raised under FLAGSCAN_STRICT=1 (see giveup.py), and the Unknown for what it would
        have computed."""
        module = module or self.at or self.current_module
        path = module.path if module is not None else "?"
        bound(self._stops, limit, f"{path}:{line or self.line}", what, frozenset(needs))
        return Unknown(f"{limit} (not followed)", needs)

    def forget(self, container: Any, state: State, module: ModuleVal, line: int, why: str,
               needs: frozenset[str] | set[str] = frozenset()) -> Unknown:
        """`container` (a list or set, mutated in place) now holds elements not known, in a number
        not known (`keys.extend(ret)` with `ret` an outside value): no list of elements states
        that, so every reference to it this path can reach (the locals of this function and its
        callers, the closure, module globals, heap attributes, and the elements of containers
        held there) becomes the Unknown returned. A write event marks each attribute replaced."""
        gone = Unknown(why, frozenset(needs))

        def swap(holder: Any) -> list[Any]:
            keys = list(holder.keys()) if isinstance(holder, dict) else range(len(holder))
            hit = [k for k in keys if holder[k] is container]
            for k in hit:
                holder[k] = gone
            return hit

        def scan(holder: dict[Any, Any]) -> None:
            swap(holder)
            for value in list(holder.values()):
                if isinstance(value, (dict, list)) and value is not container:
                    swap(value)

        for frame in [state.locals, *self.frames, getattr(state, "closure", None) or {}]:
            scan(frame)
        for mod in self.modules.values():
            scan(mod.globals)
        for oid in [oid for oid, attrs in state.heap.items() if any(
                v is container or (isinstance(v, (dict, list)) and any(x is container for x in
                                                                      (v.values() if isinstance(v, dict) else v)))
                for v in attrs.values())]:
            attrs = state.writable(oid)
            for attr in swap(attrs):
                self.record(state, "write", module, line, oid=oid, attr=attr, value=gone)
            for value in attrs.values():
                if isinstance(value, (dict, list)):
                    swap(value)
        return gone

    def trace_unknown(self, module: ModuleVal, line: int, text: str, value: Any) -> None:
        import sys as _sys

        why = value.why if isinstance(value, Unknown) else repr(value)
        print(f"[trace] {module.path}:{line}: unknown test {' '.join(text.split())[:120]!r}: {why[:160]}",
              file=_sys.stderr)

    # -- modules ----------------------------------------------------------------
    def import_module(self, name: str, state: State) -> Any:
        module = self.modules.get(name)
        if module is not None:
            made = self.imported.get(name)
            if made and next(iter(made)) not in state.heap:
                # a path forked before the module was first imported, on another path: Python
                # would run the module body here and make the same objects, so this path gets
                # them as the import left them (the `dumper` singleton of debug_utils/dumper.py
                # read on the else-side of a branch whose if-side imported it)
                heap = state.heap_w()
                for oid, attrs in made.items():
                    heap.setdefault(oid, attrs)
            return module
        ir = self.store.get(name)
        if ir is None:
            return External(name)
        module = ModuleVal(name, {"__name__": name}, ir.get("path", ""))
        self.modules[name] = module
        first = self.next_oid
        sub = State(state.heap, {}, (), (), state.chain, state.owned, [], "<module>", set(), state.modified, state.outer,
                    heap_shared=state.heap_shared)
        self._exec_module_body(module, ir["body"], sub)
        state.heap, state.chain, state.owned, state.modified = sub.heap, sub.chain, sub.owned, sub.modified
        state.heap_shared = sub.heap_shared
        state.outer = sub.outer
        module.executed = True
        made = {oid: state.heap[oid] for oid in range(first, self.next_oid) if oid in state.heap}
        if made:
            self.imported[name] = made
            # the objects are now shared with the paths that import the module later: as after a
            # fork, this path copies a heap dict or container before it writes to it
            state.owned, state.owned_values = set(), set()
        return module

    def _exec_module_body(self, module: ModuleVal, body: list[Any], state: State) -> None:
        saved = self.current_module
        self.current_module = module
        state.locals = module.globals
        try:
            for stmt in body:
                try:
                    outcomes = self.exec_stmt(stmt, state, module)
                except (Dead, Budget, RecursionError):
                    self._havoc_targets(stmt, module.globals)
                    continue
                nexts = [s for k, s, _ in outcomes if k == "next"]
                if nexts:
                    joined = join_states(nexts, "module-level code")
                    # a path that went through a raise runs on a fork with its own locals (an
                    # `except ImportError:` body's assignments): they are the module's globals
                    if joined.locals is not module.globals:
                        for key, val in list(joined.locals.items()):
                            module.globals[key] = val
                    joined.locals = module.globals
                    state.heap, state.chain, state.owned = joined.heap, joined.chain, joined.owned
                    state.modified, state.outer = joined.modified, joined.outer
                    state.heap_shared = joined.heap_shared
                else:
                    self._havoc_targets(stmt, module.globals)
        finally:
            self.current_module = saved

    @staticmethod
    def _havoc_targets(stmt: list[Any], scope: dict[str, Any]) -> None:
        if stmt[0] == "assign":
            for t in view(ir.Assign, stmt).targets:
                if t[0] == "n":
                    name = view(ir.Name, t).id
                    scope[name] = Unknown(f"module-level {name}")

    def resolve_lazy(self, lazy: LazyImport, state: State) -> Any:
        module = self.import_module(lazy.module, state)
        if lazy.attr is None:
            return module
        if isinstance(module, ModuleVal):
            return self.getattr(module, lazy.attr, state, module)
        return self.world.external_attr(External(lazy.module), lazy.attr)

    def deref(self, value: Any, state: State) -> Any:
        while isinstance(value, LazyImport):
            value = self.resolve_lazy(value, state)
        return value

    def new_obj(self, cls: ClassVal, state: State, attrs: dict[str, Any] | None = None) -> Obj:
        oid = self.next_oid
        self.next_oid += 1
        state.heap_w()[oid] = dict(attrs or {})
        state.owned.add(oid)
        state.modified.add(oid)
        return Obj(cls, oid)

    def loc(self, module: ModuleVal, line: int) -> str:
        return f"{module.path}:{line}"

    # -- assignment ----------------------------------------------------------------
    def assign(self, target: Any, value: Any, state: State, module: ModuleVal, line: int) -> None:
        kind = target[0]
        if kind == "n":
            state.locals[target[1]] = value   # Name.id, read in place (the view's first field), as eval does
        elif kind == "a":
            a = view(ir.Attr, target)
            self.setattr(self.eval(a.value, state, module), a.attr, value, state, module, line)
        elif kind == "sub":
            sub = view(ir.Subscript, target)
            container = self.deref(self.eval(sub.value, state, module), state)
            key = self.eval(sub.item, state, module)
            self.store_item(container, key, value, state, module, line)
        elif kind == "tuple":
            elts = view(ir.Elements, target).elts
            items = self.iterate(value, state, module)
            star = next((i for i, t in enumerate(elts) if isinstance(t, list) and t[:1] == ["*"]), None)
            if star is not None:
                # `*rest, a, b = x`: the starred target takes a list of what the others leave
                after = len(elts) - star - 1
                if items is not None and len(items) >= len(elts) - 1:
                    items = items[:star] + [list(items[star:len(items) - after])] + items[len(items) - after:]
                elif items is not None:
                    items = None   # Python raises; not followed
                    self.give_up(f"unpacking at least {len(elts) - 1} targets from fewer values", module, line,
                                 "the targets")
                elts = [t[1] if i == star else t for i, t in enumerate(elts)]
            elif items is not None and len(items) != len(elts):
                items = None  # Python raises; unknown, as the element values are
                self.give_up(f"unpacking {len(elts)} targets from {len(self.iterate(value, state, module) or [])} "
                             "values", module, line, "the targets")
            for i, t in enumerate(elts):
                self.assign(t, items[i] if items is not None else unknown_of(value, why="unpacked"),
                            state, module, line)
        else:
            self.give_up(f"assignment to a {kind} target", module, line, "what it assigns")

    # -- deletion ------------------------------------------------------------------
    def delete(self, target: Any, state: State, module: ModuleVal, line: int) -> None:
        """`del target`: a name, an attribute, an item (or several). A path on which Python
        raises (a name or attribute not there, a missing key) goes on as a raise."""
        kind = target[0]
        if kind == "tuple":
            for t in view(ir.Elements, target).elts:
                self.delete(t, state, module, line)
        elif kind == "n":
            name = view(ir.Name, target).id
            if name in state.locals:
                del state.locals[name]
            else:  # a global named in `global`, or a NameError: not followed
                self.give_up(f"del of {name}, not a local name", module, line, "what it deletes")
        elif kind == "a":
            a = view(ir.Attr, target)
            self.delete_attr(self.deref(self.eval(a.value, state, module, line), state), a.attr, state, module, line)
        elif kind == "sub":
            sub = view(ir.Subscript, target)
            container = self.deref(self.eval(sub.value, state, module, line), state)
            self.delete_item(container, self.eval(sub.item, state, module, line), state, module, line)
        else:
            self.give_up(f"del of a {kind} target", module, line, "what it deletes")

    def _raise_here(self, state: State, exc: ExcVal) -> None:
        state.raised.append((state.fork(), exc))
        raise Dead()

    def delete_attr(self, obj: Any, attr: str, state: State, module: ModuleVal, line: int) -> None:
        if isinstance(obj, Obj):
            found, hook = obj.cls.lookup("__delattr__")
            if found and isinstance(hook, FuncVal):
                self.call(BoundMethod(hook, obj), [attr], {}, state, module)
            elif attr in state.attrs(obj.oid):
                del state.writable(obj.oid)[attr]
            else:
                self._raise_here(state, ExcVal("AttributeError", attr))
        elif isinstance(obj, (ClassVal, FuncVal, ModuleVal)):
            space = obj.globals if isinstance(obj, ModuleVal) else obj.attrs
            if attr in space:
                del space[attr]
            elif isinstance(obj, ClassVal) or isinstance(obj, ModuleVal):
                self._raise_here(state, ExcVal("AttributeError", attr))
        elif isinstance(obj, External):
            self.external_writes[f"{obj.path}.{attr}"] = Unknown(f"{obj.path}.{attr} (deleted)",
                                                                 {f"runtime:{obj.path}.{attr}"})
        elif isinstance(obj, ConfigView):
            obj.data = {k: v for k, v in obj.data.items() if k != attr}
        elif isinstance(obj, Unknown) and not isinstance(obj, Outside) and not obj.needs and _candidates(obj) \
                and all(o is None or isinstance(o, (Obj, External)) or isinstance(o, Outside) for o in obj.options or ()):
            self._delete_maybe(obj, attr, state, module, line)
        elif not (isinstance(obj, Outside) or (isinstance(obj, Unknown) and obj.needs)):
            self.give_up(f"del of .{attr} on {getattr(obj, 'why', type(obj).__name__)}", module, line,
                         "what it may alias")

    def _delete_maybe(self, obj: Unknown, attr: str, state: State, module: ModuleVal, line: int) -> None:
        """`del x.attr` with x one of several objects (0.5.10 qwen3_5_mtp.py set_embed_and_head:
        `del self.model.embed_tokens.weight`, a VocabParallelEmbedding or a PPMissingLayer): on
        the paths where an object is x its attribute is gone, so what it holds is not known.
        (An option without the attribute raises AttributeError, or an outside base holds it.)"""
        for option in obj.options or ():
            if isinstance(option, Obj) and attr in state.attrs(option.oid):
                found, hook = option.cls.lookup("__delattr__")
                if found and isinstance(hook, FuncVal):
                    self.give_up(f"del of .{attr} through __delattr__ on one of several objects", module, line,
                                 "what it deletes")
                    continue
                value = Unknown(f".{attr} deleted on some paths")
                state.writable(option.oid)[attr] = value
                self.record(state, "write", module, line, oid=option.oid, attr=attr, value=value)
            elif isinstance(option, External):
                self.external_writes[f"{option.path}.{attr}"] = Unknown(f"{option.path}.{attr} (deleted)",
                                                                        {f"runtime:{option.path}.{attr}"})

    def delete_item(self, container: Any, key: Any, state: State, module: ModuleVal, line: int) -> None:
        if container is self.world.env and isinstance(key, str) and key in container:
            envwrites.record(self, state, module, line, key, envwrites.UNSET, "del")
        if isinstance(container, dict):
            if isinstance(key, Unknown) and key.options is not None and len(key.options) == 1:
                key = key.options[0]
            if isinstance(key, Unknown) or may_match(container, key):
                # any one entry may be the one removed: each is present on some paths only
                for k in [k for k in container if k is not OPEN]:
                    v = container[k]
                    container[k] = v if isinstance(v, Maybe) else Maybe(v)
            elif _has_key(container, key):
                del container[key]
            elif OPEN not in container:
                self._raise_here(state, ExcVal("KeyError", key))
        elif isinstance(container, list):
            if isinstance(key, (int, slice)) and not isinstance(key, bool) and (
                    isinstance(key, slice) or -len(container) <= key < len(container)):
                del container[key]
            elif isinstance(key, int) and not isinstance(key, bool):
                self._raise_here(state, ExcVal("IndexError", "list assignment index out of range"))
            else:
                self.give_up(f"del of a list element at {getattr(key, 'why', type(key).__name__)}", module, line,
                             "the list")
        elif isinstance(container, Obj):
            found, fn = container.cls.lookup("__delitem__")
            if found:
                self.call(BoundMethod(fn, container), [key], {}, state, module)
            elif container.cls.has_outside_base():
                pass   # the outside base's item delete: its contents, not an attribute
            else:
                self.give_up(f"del of an item of a {container.cls.name} without __delitem__", module, line,
                             "the object")
        elif isinstance(container, Fresh):
            container.forget()
        elif isinstance(container, EnvView):
            _env_may_hold(container, key, None)   # None: removed
        elif not (isinstance(container, Outside) or (isinstance(container, Unknown) and container.needs)):
            self.give_up(f"del of an item of {getattr(container, 'why', type(container).__name__)}", module, line,
                         "what it may alias")

    def store_item(self, container: Any, key: Any, value: Any, state: State, module: ModuleVal, line: int) -> None:
        """`container[key] = value`. A key that is not known may be any key: every entry
        the container holds may now be `value`, and (a dict) any other key may exist."""
        if container is self.world.env and isinstance(key, str):
            envwrites.record(self, state, module, line, key, value, "setitem")
        if isinstance(container, dict):
            if isinstance(key, Unknown) and key.options is not None and len(key.options) == 1:
                key = key.options[0]
            if isinstance(key, Unknown) or may_match(container, key):
                before = container.get(OPEN)
                open_dict(container, value, key_needs(key))
                if _outside(value) and (before is None or isinstance(before, Outside)):
                    # every entry written under a key not known is outside code's object (a ctypes
                    # library cached under its path): a read of one is too (expressions.py subscript)
                    kind = OutsideAttr if isinstance(value, OutsideAttr) or isinstance(before, OutsideAttr) else Outside
                    container[OPEN] = kind(container[OPEN].why, None, container[OPEN].needs) if kind is OutsideAttr \
                        else Outside(container[OPEN].why, container[OPEN].needs)
                return
            try:
                container[key] = value
            except TypeError:
                self.give_up("a dict key that cannot be hashed", module, line, "the dict")
                open_dict(container, value)
        elif isinstance(container, list):
            if isinstance(key, int) and not isinstance(key, bool) and -len(container) <= key < len(container):
                container[key] = value
            elif isinstance(key, Unknown):
                for i, old in enumerate(container):
                    container[i] = join_values([old, value], "an element written at an unknown index")
            else:
                self.give_up(f"list index {key!r} out of range or not an int", module, line, "the list")
                for i, old in enumerate(container):
                    container[i] = unknown_of(old, value, why="list after a failed store")
        elif isinstance(container, Obj):
            found, fn = container.cls.lookup("__setitem__")
            if found:
                self.call(BoundMethod(fn, container), [key, value], {}, state, module)
            elif container.cls.has_outside_base():
                # the outside base's item store (0.5.14 fp8.py `scale[:] = ...` on a torch Parameter
                # subclass): its contents, not an attribute; what it keeps may be the model's
                self.hand_over(container, [value], {})
            else:
                self.give_up(f"item assignment on a {container.cls.name} without __setitem__", module, line,
                             "the object")
        elif isinstance(container, External):
            # an outside object's entry (models/transformers.py `ALL_ATTENTION_FUNCTIONS["sglang"] = f`):
            # kept, so that the analysed code reading it back gets what it wrote
            if _hashable_key(key):
                self.external_writes[_item_path(container, key)] = value
            else:
                self.external_writes[f"{container.path}[?]"] = value
        elif isinstance(container, Fresh):
            container.forget()   # a new list: no other object holds what is stored
        elif isinstance(container, EnvView):
            _env_may_hold(container, key, value)
        elif isinstance(container, Outside) or (isinstance(container, Unknown) and container.needs):
            pass  # outside code's object, or one that stands for a fact not given: not the model's
        elif isinstance(container, Unknown) and _candidates(container):
            # one of a few containers (joined paths): each may be the one written, so each
            # entry may hold its old value or the new one
            for option in container.options or ():
                self._store_maybe(option, key, value, state, module, line)
        else:
            self.give_up(f"item assignment into {getattr(container, 'why', type(container).__name__)}",
                         module, line, "what it may alias")

    def _store_maybe(self, container: Any, key: Any, value: Any, state: State, module: ModuleVal,
                     line: int) -> None:
        """`container[key] = value` on the paths where `container` is the one written: the
        entry holds the old value or the new one (a None option raises TypeError there)."""
        if isinstance(key, Unknown) and key.options is not None and len(key.options) == 1:
            key = key.options[0]
        if isinstance(container, dict) and may_match(container, key):
            open_dict(container, value, key_needs(key))
        elif isinstance(container, dict) and not isinstance(key, Unknown) and _has_key(container, key):
            old = container[key]
            inner = join_values([old.value if isinstance(old, Maybe) else old, value], "an entry written on some paths")
            container[key] = Maybe(inner) if isinstance(old, Maybe) else inner
        elif isinstance(container, dict) and not isinstance(key, Unknown) and _hashable(key):
            container[key] = Maybe(value)  # the key is there on some paths only
        elif isinstance(container, dict):
            open_dict(container, value, key.needs if isinstance(key, Unknown) else frozenset())
        elif isinstance(container, list) and isinstance(key, int) and not isinstance(key, bool) \
                and -len(container) <= key < len(container):
            container[key] = join_values([container[key], value], "an element written on some paths")
        elif isinstance(container, list) and isinstance(key, Unknown):
            for i, old in enumerate(container):
                container[i] = join_values([old, value], "an element written at an unknown index")
        elif isinstance(container, Fresh):
            container.forget()
        elif not (container is None or isinstance(container, Outside)
                  or (isinstance(container, Unknown) and container.needs)):
            self.give_up(f"item assignment into one of several values, a {type(container).__name__}", module, line,
                         "what it may alias")

    def setattr(self, obj: Any, attr: str, value: Any, state: State, module: ModuleVal, line: int,
                raw: bool = False) -> None:
        if isinstance(obj, Obj) and not raw:
            found, hook = obj.cls.lookup("__setattr__")
            if found and isinstance(hook, FuncVal):
                self.call(BoundMethod(hook, obj), [attr, value], {}, state, module)
                return
        if isinstance(obj, Obj):
            state.writable(obj.oid)[attr] = value
            self.record(state, "write", module, line, oid=obj.oid, attr=attr, value=value)
        elif isinstance(obj, ClassVal):
            obj.attrs[attr] = value
        elif isinstance(obj, ModuleVal):
            obj.globals[attr] = value
        elif isinstance(obj, External):
            self.external_writes[f"{obj.path}.{attr}"] = value
        elif isinstance(obj, LoggerVal):
            # logging's object (kernel_api_logging.py `logger.propagate = False`): read back as written
            self.external_writes[f"{obj.path}.{attr}"] = value
        elif isinstance(obj, FuncVal):
            # `wrapper.__name__ = name` (SGLang's runtime_context.py): an attribute of the function object
            obj.attrs[attr] = value
        elif isinstance(obj, ConfigView):
            # a config object SGLang amends (model_config.py `hf_config.context_len = ...`);
            # the view gets its own dict, the given config.json stays as read
            obj.data = {**obj.data, attr: value}
        elif isinstance(obj, Unknown) and _candidates(obj) and all(
                o is None or isinstance(o, (Obj, External, Unknown)) for o in obj.options or ()):
            # one of several objects (joined paths): each may be the one written, so each
            # attribute may hold its old value or the new one (a None option raises instead;
            # an outside one, and one that stands for a fact not given, are not the model's)
            for option in obj.options or ():
                if isinstance(option, Obj):
                    old = state.attrs(option.oid).get(attr, Unknown(f"{attr} not set"))
                    joined = join_values([old, value], f"{obj.why}.{attr} written")
                    if isinstance(joined, Unknown) and obj.needs:
                        joined = Unknown(joined.why, joined.needs | obj.needs, joined.options, joined.truth)
                    state.writable(option.oid)[attr] = joined
                    self.record(state, "write", module, line, oid=option.oid, attr=attr, value=joined)
                elif isinstance(option, External):
                    path = f"{option.path}.{attr}"
                    old = self.external_writes.get(path, Unknown(path, {f"runtime:{path}"}))
                    self.external_writes[path] = join_values([old, value], f"{path} written on some paths")
                elif isinstance(option, Unknown) and not (option.needs or isinstance(option, Outside)):
                    self.give_up(f"attribute write .{attr} on one of several values, {option.why}", module, line,
                                 "what it may alias")
        elif isinstance(obj, Outside) or (isinstance(obj, Unknown) and obj.needs):
            pass  # outside code's object, or one that stands for a fact not given: not the model's
        elif isinstance(obj, Unknown) and obj.options is None:
            self._write_anywhere(attr, value, state, module, line)
        else:
            self.give_up(f"attribute write .{attr} on {getattr(obj, 'why', type(obj).__name__)}", module, line,
                         "what it may alias")

    def _write_anywhere(self, attr: str, value: Any, state: State, module: ModuleVal, line: int) -> None:
        """`x.attr = value` with x not known at all (loader.py's `for name, p in
        module.named_parameters(): p.data = ...`, where an analysed Parameter subclass may be p):
        x may be any object of the model, so each one that holds `attr` (an instance's own, a
        class's, a module's global) may now hold `value` or its old value. An object that does not
        hold it reads it as not known anyway."""
        why = f".{attr} written through a value not known"
        self.written_anywhere.add(attr)
        for oid in [oid for oid, attrs in state.heap.items() if oid >= 0 and attr in attrs]:
            attrs = state.writable(oid)
            attrs[attr] = join_values([attrs[attr], value], why)
            self.record(state, "write", module, line, oid=oid, attr=attr, value=attrs[attr])
        for mod in self.modules.values():
            if attr in mod.globals:
                mod.globals[attr] = join_values([mod.globals[attr], value], why)
            for cls in [v for v in mod.globals.values() if isinstance(v, ClassVal) and attr in v.attrs]:
                cls.attrs[attr] = join_values([cls.attrs[attr], value], why)

    def record(self, state: State, kind: str, module: ModuleVal, line: int, **data: Any) -> None:
        state.add_event(Event(kind, self.loc(module, line), state.function, state.conds,
                              state.assumptions, **data))

    # -- expressions --------------------------------------------------------------
    def eval(self, node: Any, state: State, module: ModuleVal, line: int = 0) -> Any:
        kind = node[0]
        # constants and names are most of what runs: read in place (the views' first field)
        if kind == "c":
            return node[1]   # Const.value
        if kind == "n":
            return self.lookup(node[1], state, module)   # Name.id
        method = getattr(self, EVAL[kind], None) if kind in EVAL else None
        if method is None:
            return self.give_up(f"expression kind {kind!r}", module, line)
        return method(node, state, module, line)

    def lookup(self, name: str, state: State, module: ModuleVal) -> Any:
        if name in state.locals:
            value = state.locals[name]
            if isinstance(value, (list, dict, set)) and state.locals is not module.globals:
                value, fresh = state.own(value)
                if fresh:
                    state.locals[name] = value
                return value
            return self.deref(value, state)
        closure = getattr(state, "closure", None)
        if closure and name in closure:
            return self.deref(closure[name], state)
        if name in module.globals:
            return self.deref(module.globals[name], state)
        if name in self.builtins:
            return self.builtins[name]
        return Unknown(name)

    def iterate(self, value: Any, state: State, module: ModuleVal) -> list[Any] | None:
        value = self.deref(value, state)
        if isinstance(value, (list, tuple, set, frozenset, str)):
            return list(value)
        if isinstance(value, dict):
            if OPEN in value:
                return None  # it may hold keys no one knows
            return [Maybe(k) if isinstance(v, Maybe) else k for k, v in value.items()]
        if isinstance(value, ConfigView):
            return list(value.data.keys())
        if isinstance(value, GeneratorVal):
            return self.generator_items(value, state)
        if isinstance(value, ClassVal) and value.is_enum:
            return [v for v in value.attrs.values() if isinstance(v, EnumMember)]
        # an object's own __iter__, and an unknown with options, have no element list here
        return None

    @staticmethod
    def _text(node: Any) -> str:
        from flagscan.facts.render import render

        return render(node)


def _candidates(value: Unknown) -> bool:
    """One of a few values known each (a join of paths), so a write through it can reach each."""
    return value.options is not None and 0 < len(value.options) <= 8


def _hashable(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _env_may_hold(view: EnvView, key: Any, value: Any) -> None:
    """`os.environ[key] = value` (None: `del`) with the environment open (0.5.10 environ.py's
    `os.environ[new_name] = os.environ[old_name]` at import). The environment is one for every
    path, so a variable given to the run holds its old value or the new one; a variable not
    given is unknown already. A key not known may be any given variable."""
    if isinstance(key, str):
        keys = [key]
    elif isinstance(key, Unknown) and key.options is not None:
        keys = [k for k in key.options if isinstance(k, str)] if all(isinstance(k, str) for k in key.options) \
            else list(view.data)
    else:
        keys = list(view.data)
    for k in keys:
        if k in view.data:
            view.data[k] = join_values([view.data[k], value], f"${k}, written on some paths")
