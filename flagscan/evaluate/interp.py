"""evaluate: an abstract interpreter of lowered SGLang code with three-valued branching.

Known values are plain Python values; what depends on facts not given is an
`Unknown`. A branch on an unknown test runs both sides on forked states and joins
them: a setting that differs between the sides becomes unknown (with the values
it may take) and never a guess.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from flagscan.evaluate.state import Event, State, join_states, join_values, same
from flagscan.evaluate.values import (
    BoundMethod, Builtin, ClassVal, ConfigView, EnumMember, EnvView, ExcVal, External, FuncVal, GenericAlias,
    LambdaVal, LazyImport, LoggerVal, Maybe, Memo, ModuleVal, Obj, PartialVal, Raised, SuperVal, Unknown, has_unknown,
    unknown_of,
)


class Dead(Exception):
    """Every path through an expression raised; the statement ends here."""


class Budget(Exception):
    """The step budget of one call ran out."""


_BIN: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "|": operator.or_,
    "&": operator.and_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}
PLAIN = (str, int, float, bool, type(None), tuple, list, dict, set, frozenset)


def truth(value: Any) -> bool | None:
    """Three-valued truthiness: None when it cannot be known."""
    if isinstance(value, Unknown):
        if value.options is not None and value.options:
            ts = {truth(o) for o in value.options}
            if len(ts) == 1:
                return ts.pop()
        return value.truth
    if isinstance(value, (list, tuple, dict, set, frozenset, str)):
        return len(value) > 0
    if isinstance(value, (int, float, bool)) or value is None:
        return bool(value)
    if isinstance(value, External):
        return None
    return True


def falsy_unknown(why: str, needs, value: bool) -> Unknown:
    return Unknown(why, needs, truth=value)


class Interpreter:
    """Executes lowered modules from a ModuleStore under a world of facts."""

    def __init__(self, store, world, *, max_depth: int = 40, call_budget: int = 400_000,
                 declarations: dict[str, Any] | None = None) -> None:
        from flagscan.evaluate import builtins as _builtins

        self.store = store
        self.world = world  # flagscan.evaluate.world.World: hardware, env, model, primitives
        self.modules: dict[str, ModuleVal] = {}
        self.builtins = _builtins.table(self)
        self.max_depth = max_depth
        self.depth = 0
        self.steps = 0
        self.call_budget = call_budget
        self.next_oid = 1
        self.notes: list[str] = []
        self.current_module: ModuleVal | None = None
        self.stack: list[tuple[str, Any]] = []
        # Attributes of dataclass records just before __post_init__ (the parsed input).
        self.snapshots: dict[int, dict[str, Any]] = {}
        # What each assumed (unknown) test needed: a value joined from paths that differ
        # only by such assumptions needs the same facts.
        self.assumed_needs: dict[str, frozenset[str]] = {}
        self.declarations = declarations or {}
        self.declare_functions = set(self.declarations.get("functions", []))
        import os as _os
        self.trace = bool(_os.environ.get("FLAGSCAN_TRACE"))

    def trace_unknown(self, module: ModuleVal, line: int, text: str, value: Any) -> None:
        import sys as _sys

        why = value.why if isinstance(value, Unknown) else repr(value)
        print(f"[trace] {module.path}:{line}: unknown test {' '.join(text.split())[:120]!r}: {why[:160]}",
              file=_sys.stderr)

    # -- modules ----------------------------------------------------------------
    def import_module(self, name: str, state: State) -> Any:
        if name in self.modules:
            return self.modules[name]
        ir = self.store.get(name)
        if ir is None:
            return External(name)
        module = ModuleVal(name, {"__name__": name}, ir.get("path", ""))
        self.modules[name] = module
        sub = State(state.heap, {}, (), (), state.chain, state.owned, [], "<module>", set(), state.modified, state.outer)
        self._exec_module_body(module, ir["body"], sub)
        state.heap, state.chain, state.owned, state.modified = sub.heap, sub.chain, sub.owned, sub.modified
        state.outer = sub.outer
        module.executed = True
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
                    joined.locals = module.globals
                    for key, val in list(joined.locals.items()):
                        module.globals[key] = val
                    state.heap, state.chain, state.owned = joined.heap, joined.chain, joined.owned
                    state.modified, state.outer = joined.modified, joined.outer
                else:
                    self._havoc_targets(stmt, module.globals)
        finally:
            self.current_module = saved

    @staticmethod
    def _havoc_targets(stmt: list[Any], scope: dict[str, Any]) -> None:
        if stmt[0] == "assign":
            for t in stmt[2]:
                if t[0] == "n":
                    scope[t[1]] = Unknown(f"module-level {t[1]}")

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
        state.heap[oid] = dict(attrs or {})
        state.owned.add(oid)
        state.modified.add(oid)
        return Obj(cls, oid)

    # -- statements --------------------------------------------------------------
    def exec_block(self, stmts: list[Any], state: State, module: ModuleVal) -> list[tuple[str, State, Any]]:
        """Run statements; returns outcomes (kind, state, value) with kind in
        next | return | raise | break | continue. At most one `next`."""
        done: list[tuple[str, State, Any]] = []
        current: State | None = state
        for stmt in stmts:
            if current is None:
                break
            outcomes = self.exec_stmt(stmt, current, module)
            nexts = [s for k, s, _ in outcomes if k == "next"]
            done.extend(o for o in outcomes if o[0] != "next")
            current = join_states(nexts, "branch") if nexts else None
        if current is not None:
            done.append(("next", current, None))
        return done

    def exec_stmt(self, stmt: list[Any], state: State, module: ModuleVal) -> list[tuple[str, State, Any]]:
        self.steps += 1
        if self.steps > self.call_budget:
            raise Budget()
        kind = stmt[0]
        try:
            handler = getattr(self, "_s_" + kind)
        except AttributeError:
            return [("next", state, None)]
        try:
            outcomes = handler(stmt, state, module)
        except Dead:
            outcomes = []
        raised = state.raised
        if raised:
            state.raised = []
            outcomes = list(outcomes) + [("raise", s, exc) for s, exc in raised]
        return outcomes

    def loc(self, module: ModuleVal, line: int) -> str:
        return f"{module.path}:{line}"

    def _s_pass(self, stmt, state, module):
        return [("next", state, None)]

    _s_del = _s_pass
    _s_unk = _s_pass

    def _s_break(self, stmt, state, module):
        return [("break", state, None)]

    def _s_continue(self, stmt, state, module):
        return [("continue", state, None)]

    def _s_expr(self, stmt, state, module):
        self.eval(stmt[2], state, module, line=stmt[1])
        return [("next", state, None)]

    def _s_assign(self, stmt, state, module):
        value = self.eval(stmt[3], state, module, line=stmt[1])
        for target in stmt[2]:
            self.assign(target, value, state, module, stmt[1])
        return [("next", state, None)]

    def _s_aug(self, stmt, state, module):
        current = self.eval(stmt[2], state, module, line=stmt[1])
        value = self.eval(stmt[4], state, module, line=stmt[1])
        if isinstance(current, list) and stmt[3] == "+" and isinstance(value, (list, tuple)):
            current.extend(value)  # in-place, as Python does for lists
            return [("next", state, None)]
        self.assign(stmt[2], self.binop(stmt[3], current, value), state, module, stmt[1])
        return [("next", state, None)]

    def _s_import(self, stmt, state, module):
        for local, mod, attr in stmt[2]:
            if attr == "*":
                source = self.import_module(mod, state)
                if isinstance(source, ModuleVal):
                    names = source.globals.get("__all__")
                    if not isinstance(names, (list, tuple)):
                        names = [n for n in source.globals if not n.startswith("_")]
                    for n in names:
                        if n in source.globals:
                            state.locals[n] = source.globals[n]
                continue
            if attr is None and "." in mod and local == mod.split(".")[0]:
                # `import a.b.c`: Python runs a.b.c now (registries fill up) and binds `a`.
                if self.store.module_file(mod) is not None:
                    self.import_module(mod, state)
                state.locals[local] = LazyImport(local, None)
                continue
            if attr is not None and self.store.module_file(f"{mod}.{attr}") is not None \
                    and not self._defines(mod, attr):
                # `from pkg import submodule` runs the submodule now, as Python does.
                state.locals[local] = self.import_module(f"{mod}.{attr}", state)
                continue
            state.locals[local] = LazyImport(mod, attr)
        return [("next", state, None)]

    def _defines(self, module: str, name: str) -> bool:
        """Whether a package's __init__ binds `name` itself (then that binding wins)."""
        ir = self.store.get(module)
        if ir is None:
            return False
        for stmt in ir["body"]:
            if stmt[0] in ("def", "class") and stmt[2].get("name") == name:
                return True
            if stmt[0] == "assign" and any(t[0] == "n" and t[1] == name for t in stmt[2]):
                return True
        return False

    def _s_def(self, stmt, state, module):
        ir = stmt[2]
        closure = state.locals if state.locals is not module.globals else None
        fn: Any = FuncVal(module, ir, closure)
        # A function that stands for a given fact keeps its identity: its
        # decorators (caches, retries) would only hide it from the world.
        if fn.qualname not in self.world.sglang:
            for deco in reversed(ir["decorators"]):
                fn = self.decorate(deco, fn, state, module)
        state.locals[ir["name"]] = fn
        return [("next", state, None)]

    def decorate(self, deco: Any, fn: Any, state: State, module: ModuleVal) -> Any:
        name = deco[2] if deco[0] == "a" else (deco[1] if deco[0] == "n" else "")
        if name in ("staticmethod", "classmethod", "property") and isinstance(fn, FuncVal):
            fn.kind = name
            return fn
        if name in ("setter", "deleter", "getter"):
            return None  # a property's setter replaces nothing we evaluate
        value = self.eval(deco, state, module)
        if isinstance(value, (FuncVal, BoundMethod, PartialVal, LambdaVal, Builtin, External, Memo)):
            result = self.call(value, [fn], {}, state, module)
            # An unknown decorator (torch.compile, triton.jit...) keeps the function.
            return fn if isinstance(result, Unknown) or result is None else result
        return fn

    def _s_class(self, stmt, state, module):
        ir = stmt[2]
        bases = [self.eval(b, state, module) for b in ir["bases"]]
        cls = ClassVal(ir["name"], module, ir, bases)
        for base in bases:
            path = base.path if isinstance(base, External) else (base.name if isinstance(base, ClassVal) else "")
            tail = path.rsplit(".", 1)[-1]
            if tail in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag") or (isinstance(base, ClassVal) and base.is_enum):
                cls.is_enum = True
            if tail == "Struct" or (isinstance(base, ClassVal) and base.is_dataclass):
                cls.is_dataclass = True
        namespace: dict[str, Any] = {}
        saved = state.locals
        state.locals = namespace
        try:
            for inner in ir["body"]:
                try:
                    outcomes = self.exec_stmt(inner, state, module)
                except (Dead, Budget):
                    continue
                nexts = [s for k, s, _ in outcomes if k == "next"]
                if nexts:
                    joined = join_states(nexts, "class body")
                    state.heap, state.chain, state.owned = joined.heap, joined.chain, joined.owned
                    state.modified, state.outer = joined.modified, joined.outer
        finally:
            state.locals = saved
        for key, value in namespace.items():
            if isinstance(value, FuncVal) and value.owner is None:
                value.owner = cls
            if cls.is_enum and not key.startswith("_") and not isinstance(value, (FuncVal, ClassVal, Builtin)):
                value = EnumMember(cls.name, key, value, cls)
            cls.attrs[key] = value
        result: Any = cls
        for deco in reversed(ir["decorators"]):
            dname = deco[2] if deco[0] == "a" else (deco[1] if deco[0] == "n" else "")
            if deco[0] == "call":
                inner = deco[1]
                dname = inner[2] if inner[0] == "a" else (inner[1] if inner[0] == "n" else "")
            if dname == "dataclass":
                cls.is_dataclass = True
                continue
            value = self.eval(deco, state, module)
            if isinstance(value, (FuncVal, BoundMethod, PartialVal)):
                out = self.call(value, [result], {}, state, module)
                if isinstance(out, ClassVal):
                    result = out
        for key, value in list(cls.attrs.items()):
            if isinstance(value, Obj):
                found, hook = value.cls.lookup("__set_name__")
                if found and isinstance(hook, FuncVal):
                    self.call(BoundMethod(hook, value), [cls, key], {}, state, module)
        state.locals[ir["name"]] = result
        return [("next", state, None)]

    def _s_if(self, stmt, state, module):
        _, line, test_ir, body, orelse, text = stmt[:6]   # stmt[6], the source text, is for the read extractor
        test = self.eval(test_ir, state, module, line=line)
        t = truth(test)
        if t is True:
            return self._branch(body, state, module, text)
        if t is False:
            return self._branch(orelse, state, module, f"not ({text})")
        if self.trace:
            self.trace_unknown(module, line, text, test)
        other = state.fork()
        other.assumptions = other.assumptions + (f"not ({text})",)
        state.assumptions = state.assumptions + (text,)
        if isinstance(test, Unknown) and test.needs:
            self.assumed_needs[text] = self.assumed_needs.get(text, frozenset()) | test.needs
            self.assumed_needs[f"not ({text})"] = self.assumed_needs[text]
        return self._branch(body, state, module, text) + self._branch(orelse, other, module, f"not ({text})")

    def _branch(self, stmts, state, module, cond):
        saved = state.conds
        state.conds = saved + (cond,)
        outcomes = self.exec_block(stmts, state, module)
        for _, s, _v in outcomes:
            s.conds = saved
        return outcomes

    def _s_ret(self, stmt, state, module):
        value = self.eval(stmt[2], state, module, line=stmt[1]) if stmt[2] is not None else None
        return [("return", state, value)]

    def _s_raise(self, stmt, state, module):
        # A raising path keeps its own state object: the caller may later adopt the
        # joined returning paths into the object it passed in.
        if stmt[2] is None:
            current = state.locals.get("__exception__")
            if isinstance(current, ExcVal):
                return [("raise", state.fork(), current)]
        exc = self.eval(stmt[2], state, module, line=stmt[1]) if stmt[2] is not None else ExcVal("Exception", "re-raised")
        if isinstance(exc, ClassVal):
            exc = ExcVal(exc.name, "", exc)
        if not isinstance(exc, ExcVal):
            exc = ExcVal(getattr(exc, "path", "Exception"), exc if isinstance(exc, (str, Unknown)) else "")
        self.record(state, "raise", module, stmt[1], value=exc.type_name, message=exc.message)
        return [("raise", state.fork(), exc)]

    def _s_assert(self, stmt, state, module):
        _, line, test_ir, msg_ir, text = stmt[:5]   # stmt[5], the source text, is for the read extractor
        t = truth(self.eval(test_ir, state, module, line=line))
        if t is True:
            return [("next", state, None)]
        failing = state.fork()
        if t is None:
            failing.assumptions = failing.assumptions + (f"not ({text})",)
            state.assumptions = state.assumptions + (text,)
        message = self.eval(msg_ir, failing, module, line=line) if msg_ir is not None else text
        exc = ExcVal("AssertionError", message)
        self.record(failing, "raise", module, line, value="AssertionError", message=message)
        if t is False:
            return [("raise", failing, exc)]
        return [("next", state, None), ("raise", failing, exc)]

    def _s_for(self, stmt, state, module):
        _, line, target, iter_ir, body, orelse = stmt
        iterable = self.iterate(self.eval(iter_ir, state, module, line=line), state, module)
        if iterable is None:
            # Unknown iteration: one pass with an unknown element, joined with none.
            skip = state.fork()
            self.assign(target, Unknown(f"element of {self._text(iter_ir)}"), state, module, line)
            outcomes = self.exec_block(body, state, module)
            nexts = [s for k, s, _ in outcomes if k in ("next", "continue", "break")] + [skip]
            rest = [o for o in outcomes if o[0] in ("return", "raise")]
            return [("next", join_states(nexts, "loop"), None)] + rest
        current: State | None = state
        finished: list[State] = []
        results: list[tuple[str, State, Any]] = []
        for item in iterable[:2000]:
            if current is None:
                break
            skipped = None
            if isinstance(item, Maybe):  # present on some paths: run the body on one, skip on the other
                skipped = current.fork()
                what = f"an element of {self._text(iter_ir)} that exists on some paths"
                skipped.assumptions = skipped.assumptions + (f"{what} is absent",)
                current.assumptions = current.assumptions + (f"{what} is present",)
                item = item.value
            self.assign(target, item, current, module, line)
            outcomes = self.exec_block(body, current, module)
            if skipped is not None:
                outcomes = list(outcomes) + [("next", skipped, None)]
            conts = [s for k, s, _ in outcomes if k in ("next", "continue")]
            finished.extend(s for k, s, _ in outcomes if k == "break")
            results.extend(o for o in outcomes if o[0] in ("return", "raise"))
            current = join_states(conts, "loop") if conts else None
        if current is not None:
            if orelse:
                for k, s, v in self.exec_block(orelse, current, module):
                    (finished.append(s) if k == "next" else results.append((k, s, v)))
            else:
                finished.append(current)
        if finished:
            results.append(("next", join_states(finished, "loop"), None))
        return results

    def _s_while(self, stmt, state, module):
        _, line, test_ir, body = stmt
        current: State | None = state
        results: list[tuple[str, State, Any]] = []
        exits: list[State] = []
        for _ in range(200):
            if current is None:
                break
            t = truth(self.eval(test_ir, current, module, line=line))
            if t is False:
                exits.append(current)
                current = None
                break
            if t is None:
                exits.append(current.fork())
            outcomes = self.exec_block(body, current, module)
            exits.extend(s for k, s, _ in outcomes if k == "break")
            results.extend(o for o in outcomes if o[0] in ("return", "raise"))
            conts = [s for k, s, _ in outcomes if k in ("next", "continue")]
            current = join_states(conts, "loop") if conts else None
            if t is None:
                if current is not None:
                    exits.append(current)
                current = None
        if current is not None:
            exits.append(current)
        if exits:
            results.append(("next", join_states(exits, "loop"), None))
        return results

    def _s_try(self, stmt, state, module):
        _, line, body, handlers, orelse, final = stmt
        outcomes = self.exec_block(body, state, module)
        results: list[tuple[str, State, Any]] = []
        for kind, s, value in outcomes:
            if kind == "next" and orelse:
                results.extend(self.exec_block(orelse, s, module))
            elif kind == "raise" and handlers:
                handler = self._match_handler(handlers, value, s, module)
                if handler is None:
                    results.append((kind, s, value))
                    continue
                if handler[1]:
                    s.locals[handler[1]] = value
                s.locals["__exception__"] = value  # what a bare `raise` re-raises
                results.extend(self.exec_block(handler[2], s, module))
            else:
                results.append((kind, s, value))
        if final:
            finals = []
            for kind, s, value in results:
                for k2, s2, v2 in self.exec_block(final, s, module):
                    finals.append((kind, s2, value) if k2 == "next" else (k2, s2, v2))
            results = finals
        return results

    def _match_handler(self, handlers, exc, state, module):
        name = exc.type_name if isinstance(exc, ExcVal) else ""
        for handler in handlers:
            if handler[0] is None:
                return handler
            types = self.eval(handler[0], state, module)
            names = [self._type_name(t) for t in (types if isinstance(types, tuple) else (types,))]
            if any(n in ("Exception", "BaseException", name) or n == "" for n in names):
                return handler
            exc_cls = exc.cls if isinstance(exc, ExcVal) else None
            if isinstance(exc_cls, ClassVal) and any(c.name in names for c in exc_cls.mro()):
                return handler
        return None

    @staticmethod
    def _type_name(t: Any) -> str:
        if isinstance(t, ClassVal):
            return t.name
        if isinstance(t, Builtin):
            return t.name
        if isinstance(t, External):
            return t.path.rsplit(".", 1)[-1]
        return ""

    def _s_with(self, stmt, state, module):
        _, line, items, body = stmt
        for expr, target in items:
            value = self.eval(expr, state, module, line=line)
            if target is not None:
                self.assign(target, Unknown(f"context of {self._text(expr)}") if not isinstance(value, PLAIN) else value,
                            state, module, line)
        return self.exec_block(body, state, module)

    # -- assignment ----------------------------------------------------------------
    def assign(self, target: Any, value: Any, state: State, module: ModuleVal, line: int) -> None:
        kind = target[0]
        if kind == "n":
            state.locals[target[1]] = value
        elif kind == "a":
            obj = self.eval(target[1], state, module)
            self.setattr(obj, target[2], value, state, module, line)
        elif kind == "sub":
            container = self.eval(target[1], state, module)
            key = self.eval(target[2], state, module)
            if isinstance(container, (dict, list)) and not isinstance(key, Unknown):
                try:
                    container[key] = value
                except (TypeError, IndexError):
                    pass
            elif isinstance(container, Obj):
                found, fn = container.cls.lookup("__setitem__")
                if found:
                    self.call(BoundMethod(fn, container), [key, value], {}, state, module)
        elif kind == "tuple":
            items = self.iterate(value, state, module)
            for i, t in enumerate(target[1]):
                self.assign(t, items[i] if items is not None and i < len(items) else unknown_of(value, why="unpacked"),
                            state, module, line)

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

    def record(self, state: State, kind: str, module: ModuleVal, line: int, **data: Any) -> None:
        state.add_event(Event(kind, self.loc(module, line), state.function, state.conds,
                              state.assumptions, **data))

    # -- expressions --------------------------------------------------------------
    def eval(self, node: Any, state: State, module: ModuleVal, line: int = 0) -> Any:
        kind = node[0]
        if kind == "c":
            return node[1]
        if kind == "n":
            return self.lookup(node[1], state, module)
        method = getattr(self, "_e_" + kind, None)
        if method is None:
            return Unknown(self._text(node))
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

    def _e_unk(self, node, state, module, line):
        return Unknown(node[1])

    def _e_a(self, node, state, module, line):
        base = self.eval(node[1], state, module, line)
        return self.getattr(base, node[2], state, module, node)

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        base = self.deref(base, state)
        if isinstance(base, Unknown):
            return Unknown(f"{base.why}.{attr}", base.needs)
        if isinstance(base, Obj):
            attrs = state.attrs(base.oid)
            if attr in attrs:
                value = attrs[attr]
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
                return Builtin(f"object.{attr}", _object_method(attr))
            return self.world.external_attr(base, attr)
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
                method = _object_method(attr)
                target = base.obj
                return Builtin(f"object.{attr}", lambda i, s, a, k, m, l: method(i, s, [target, *a], k, m, l))
            return Unknown(f"super().{attr}")
        if isinstance(base, BoundMethod) and attr == "__func__":
            return base.func
        if isinstance(base, LoggerVal):
            return Builtin(f"logger.{attr}", _logger_method(attr))
        if isinstance(base, PLAIN) or type(base).__name__ in ("Match", "Pattern"):
            return self.builtins_attr(base, attr)
        if isinstance(base, ExcVal) and attr == "args":
            return (base.message,)
        if isinstance(base, FuncVal) and attr in ("__name__", "__qualname__"):
            return base.ir["name"] if attr == "__name__" else (
                f"{base.owner.name}.{base.ir['name']}" if base.owner is not None else base.ir["name"])
        if isinstance(base, FuncVal) and attr == "__module__":
            return base.module.name
        return Unknown(f"{type(base).__name__}.{attr}")

    def builtins_attr(self, base: Any, attr: str) -> Any:
        from flagscan.evaluate.builtins import method_of

        return method_of(base, attr)

    def bind(self, value: Any, obj: Obj, state: State, module: ModuleVal) -> Any:
        if isinstance(value, FuncVal):
            if value.kind == "property":
                return self.call(value, [obj], {}, state, module)
            if value.kind == "staticmethod":
                return value
            if value.kind == "classmethod":
                return BoundMethod(value, obj.cls)
            return BoundMethod(value, obj)
        if isinstance(value, (LambdaVal, PartialVal)):
            return value
        return value

    def _e_call(self, node, state, module, line):
        func = self.eval(node[1], state, module, line)
        args: list[Any] = []
        for a in node[2]:
            if isinstance(a, list) and a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list):
                items = self.iterate(self.eval(a[1], state, module, line), state, module)
                if items is None:
                    return Unknown(self._text(node))
                args.extend(items)
            else:
                args.append(self.eval(a, state, module, line))
        kwargs: dict[str, Any] = {}
        for key, expr in node[3]:
            value = self.eval(expr, state, module, line)
            if key == "**":
                if isinstance(value, dict):
                    kwargs.update({str(k): v for k, v in value.items()})
                else:
                    return Unknown(self._text(node))
            else:
                kwargs[key] = value
        return self.call(func, args, kwargs, state, module, node=node, line=line)

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], state: State, module: ModuleVal,
             node: Any = None, line: int = 0) -> Any:
        func = self.deref(func, state)
        if isinstance(func, BoundMethod):
            return self.call(func.func, [func.self_obj] + list(args), kwargs, state, module, node, line)
        if isinstance(func, FuncVal):
            if func.qualname in self.declare_functions:
                self.record_declaration(func, args, kwargs, state, module, line)
            return self.call_function(func, args, kwargs, state)
        if isinstance(func, Builtin):
            return func.fn(self, state, args, kwargs, module, line)
        if isinstance(func, ClassVal):
            return self.instantiate(func, args, kwargs, state, module, line)
        if isinstance(func, PartialVal):
            return self.call(func.func, list(func.args) + list(args), {**func.kwargs, **kwargs}, state, module, node, line)
        if isinstance(func, Memo):
            key = _memo_key(args, kwargs)
            if key is None:
                return self.call(func.func, args, kwargs, state, module, node, line)
            if key not in func.cache:
                func.cache[key] = self.call(func.func, args, kwargs, state, module, node, line)
            return func.cache[key]
        if isinstance(func, LambdaVal):
            local = dict(func.closure)
            for (pname, default, _), arg in zip(func.params, args):
                local[pname] = arg
            saved = state.locals
            state.locals = local
            try:
                return self.eval(func.body, state, func.module)
            finally:
                state.locals = saved
        if isinstance(func, External):
            result = self.world.call_external(self, func, args, kwargs, state, module, line)
            if isinstance(result, Raised):
                self.record(state, "raise", module, line, value=result.exc.type_name, message=result.exc.message)
                state.raised.append((state.fork(), result.exc))
                raise Dead()
            return result
        if callable(func) and not isinstance(func, type):
            if any(has_unknown(a) for a in args) or any(has_unknown(v) for v in kwargs.values()):
                return unknown_of(*args, *kwargs.values(), why=self._text(node) if node else "call")
            try:
                return func(*args, **kwargs)
            except Exception:
                return Unknown(self._text(node) if node else "call")
        if isinstance(func, Unknown):
            return Unknown(self._text(node) if node else func.why, func.needs)
        return Unknown(self._text(node) if node else f"call of {type(func).__name__}")

    def record_declaration(self, fn: FuncVal, args, kwargs, state: State, module: ModuleVal, line: int) -> None:
        """A declared resolution is a write of each keyword field by the named source."""
        record = args[self.declarations.get("record_arg", 0)] if len(args) > self.declarations.get("record_arg", 0) else None
        source_i = self.declarations.get("source_arg", 1)
        source = args[source_i] if len(args) > source_i else kwargs.get("source")
        if not isinstance(record, Obj):
            return
        saved = state.function
        state.function = source if isinstance(source, str) else state.function
        for name, value in kwargs.items():
            if name != "source":
                self.record(state, "write", module, line, oid=record.oid, attr=name, value=value)
        state.function = saved

    def call_function(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> Any:
        override = self.world.function_override(self, fn, args, kwargs, state)
        if override is not NotImplemented:
            return override
        if self.depth >= self.max_depth:
            return Unknown(f"{fn.qualname}(...) (call depth)")
        if sum(1 for _, f in self.stack if f is fn.ir) >= 3:
            # Recursion on values flagscan cannot see through would fork without end.
            return Unknown(f"{fn.qualname}(...) (recursion)")
        local = self.bind_params(fn, args, kwargs, state)
        saved_locals, saved_conds, saved_fn = state.locals, state.conds, state.function
        saved_closure = getattr(state, "closure", None)
        state.locals = local
        state.closure = fn.closure  # type: ignore[attr-defined]
        state.function = fn.ir["name"]
        state.conds = ()  # conditions are reported per function, where they are written
        self.depth += 1
        self.stack.append((fn.qualname, fn.ir))
        try:
            outcomes = self.exec_block(fn.ir["body"], state, fn.module)
        except Budget:
            self.notes.append(f"{fn.qualname}: analysis budget exhausted")
            outcomes = [("return", state, Unknown(f"{fn.qualname}(...) (budget)"))]
        finally:
            self.depth -= 1
            self.stack.pop()
        returns = [(s, v) for k, s, v in outcomes if k in ("return", "next")]
        raises = [(s, v) for k, s, v in outcomes if k == "raise"]
        for s, _ in returns + raises:
            s.locals, s.conds, s.function = saved_locals, saved_conds, saved_fn
            s.closure = saved_closure  # type: ignore[attr-defined]
        state.raised.extend(raises)
        if not returns:
            state.locals, state.conds, state.function = saved_locals, saved_conds, saved_fn
            state.closure = saved_closure  # type: ignore[attr-defined]
            raise Dead()
        joined = join_states([s for s, _ in returns], f"{fn.qualname}(...)")
        state.adopt(joined)
        state.locals, state.conds, state.function = saved_locals, saved_conds, saved_fn
        state.closure = saved_closure  # type: ignore[attr-defined]
        value = join_values([v for _, v in returns], f"{fn.qualname}(...)")
        if isinstance(value, Unknown) and not value.needs and len(returns) > 1:
            # the paths differ by tests assumed inside this call: name what those needed
            needs = frozenset().union(*(self.assumed_needs.get(a, frozenset())
                                        for s, _ in returns for a in s.assumptions[len(joined.assumptions):]))
            if needs:
                value = Unknown(value.why, needs, value.options, value.truth)
        return value

    def bind_params(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> dict[str, Any]:
        local: dict[str, Any] = {}
        rest = list(args)
        extra_kw = dict(kwargs)
        star_kw = None
        for name, default, kind in fn.ir["params"]:
            if kind == "pos":
                if rest:
                    local[name] = rest.pop(0)
                elif name in extra_kw:
                    local[name] = extra_kw.pop(name)
                elif default is not None:
                    local[name] = self.eval(default, state, fn.module)
                else:
                    local[name] = Unknown(f"argument {name}")
            elif kind == "*":
                local[name] = tuple(rest)
                rest = []
            elif kind == "kw":
                if name in extra_kw:
                    local[name] = extra_kw.pop(name)
                elif default is not None:
                    local[name] = self.eval(default, state, fn.module)
                else:
                    local[name] = Unknown(f"argument {name}")
            elif kind == "**":
                star_kw = name
        if star_kw is not None:
            local[star_kw] = extra_kw
        return local

    def instantiate(self, cls: ClassVal, args: list[Any], kwargs: dict[str, Any], state: State,
                    module: ModuleVal, line: int) -> Any:
        if any(c.name in ("Exception", "BaseException") or _is_exception(c) for c in cls.mro()):
            return ExcVal(cls.name, args[0] if args else "", cls)
        if cls.is_enum:
            for key, member in cls.attrs.items():
                if isinstance(member, EnumMember) and args and same(member.value, args[0]):
                    return member
            return Unknown(f"{cls.name}({args[0] if args else ''})")
        obj = self.new_obj(cls, state)
        found, init = cls.lookup("__init__")
        if found and isinstance(init, FuncVal):
            self.call(BoundMethod(init, obj), args, kwargs, state, module)
        elif cls.is_dataclass or any(c.is_dataclass for c in cls.mro()):
            self.dataclass_init(cls, obj, args, kwargs, state, module, line)
        return obj

    def dataclass_init(self, cls: ClassVal, obj: Obj, args, kwargs, state: State, module: ModuleVal, line: int) -> None:
        rest = list(args)
        values: dict[str, Any] = {}
        for name, spec in cls.dataclass_fields():
            if rest:
                values[name] = rest.pop(0)
            elif name in kwargs:
                values[name] = kwargs[name]
            else:
                values[name] = self.spec_default(spec, state, f"{cls.name}.{name}")
        attrs = state.writable(obj.oid)
        attrs.update(values)
        self.snapshots.setdefault(obj.oid, dict(attrs))
        found, post = cls.lookup("__post_init__")
        if found and isinstance(post, FuncVal):
            self.call(BoundMethod(post, obj), [], {}, state, module)

    def spec_default(self, spec: Any, state: State, what: str) -> Any:
        if spec is None:
            return Unknown(f"{what} (no value)")
        if spec[0] == "ir":
            return self.field_default(spec[1], state, spec[2].module)
        if spec[0] == "value":
            return spec[1]
        return self.call(spec[1], [], {}, state, self.current_module or ModuleVal("?"))

    def field_default(self, default: Any, state: State, module: ModuleVal) -> Any:
        """`x: T = value`, `field(default=...)`, `field(default_factory=...)`."""
        if default[0] == "call" and default[1][0] in ("n", "a"):
            fname = default[1][1] if default[1][0] == "n" else default[1][2]
            if fname == "field":
                for key, expr in default[3]:
                    if key == "default":
                        return self.eval(expr, state, module)
                    if key == "default_factory":
                        return self.call(self.eval(expr, state, module), [], {}, state, module)
                return None
        value = self.eval(default, state, module)
        if isinstance(value, ConfigView) and value.origin == "msgspec.field":
            if "default" in value.data:
                return value.data["default"]
            return self.call(value.data.get("default_factory"), [], {}, state, module)
        return value

    # -- operators -----------------------------------------------------------------
    def binop(self, op: str, left: Any, right: Any) -> Any:
        if op == "|" and isinstance(left, (ClassVal, External, Builtin, GenericAlias)) and (
                right is None or isinstance(right, (ClassVal, External, Builtin, GenericAlias))):
            none = External("builtins.NoneType")
            return GenericAlias(External("types.UnionType"), (left, none if right is None else right))
        if isinstance(left, ConfigView):
            result = self.world.binop(op, left, right)
            if result is not NotImplemented:
                return result
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            opts = _combine_options(left, right, _BIN.get(op))
            return opts if opts is not None else unknown_of(left, right, why=f"{op} on unknown")
        if has_unknown(left) or has_unknown(right):
            if op == "+" and isinstance(left, (list, tuple)) and type(left) is type(right):
                return left + right
            return unknown_of(left, right, why=f"{op} on unknown")
        fn = _BIN.get(op)
        if fn is None:
            return Unknown(f"operator {op}")
        try:
            return fn(left, right)
        except Exception:
            return Unknown(f"{op} failed")

    def _e_bin(self, node, state, module, line):
        return self.binop(node[1], self.eval(node[2], state, module, line), self.eval(node[3], state, module, line))

    def _e_bool(self, node, state, module, line):
        op, operands = node[1], node[2]
        result: Any = None
        pending_unknown: Unknown | None = None
        for i, operand in enumerate(operands):
            value = self.eval(operand, state, module, line)
            t = truth(value)
            if op == "and":
                if t is False:
                    if pending_unknown is not None:
                        return falsy_unknown(pending_unknown.why, pending_unknown.needs, False) if not isinstance(value, PLAIN) or value not in (False, None, 0, "") else _maybe(value, pending_unknown)
                    return value
                if t is None:
                    pending_unknown = unknown_of(value, why=self._text(operand)) if pending_unknown is None else pending_unknown
            else:
                if t is True:
                    if pending_unknown is not None:
                        return falsy_unknown(pending_unknown.why, pending_unknown.needs, True)
                    return value
                if t is None:
                    pending_unknown = unknown_of(value, why=self._text(operand)) if pending_unknown is None else pending_unknown
            result = value
        if pending_unknown is not None:
            return Unknown(pending_unknown.why, pending_unknown.needs)
        return result

    def _e_cmp(self, node, state, module, line):
        left = self.eval(node[1], state, module, line)
        result: Any = True
        for op, right_ir in node[2]:
            right = self.eval(right_ir, state, module, line)
            r = self.compare(op, left, right)
            t = truth(r)
            if t is False:
                return False
            if t is None:
                result = r if result is True else unknown_of(result, r)
            left = right
        return result

    def compare(self, op: str, left: Any, right: Any) -> Any:
        if op in ("is", "isnot"):
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                opts = _combine_options(left, right, lambda a, b: (a is b) if a is None or b is None else a == b)
                if opts is not None:
                    return opts if op == "is" else (not opts if isinstance(opts, bool) else opts)
                return unknown_of(left, right, why="identity of unknown")
            same_obj = left is right or (left is None and right is None) or (
                isinstance(left, (bool, EnumMember)) and left == right) or (
                isinstance(left, External) and isinstance(right, External) and left.path == right.path)
            return same_obj if op == "is" else not same_obj
        if op in ("in", "notin"):
            return self.membership(left, right, op == "in")
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            opts = _combine_options(left, right, _CMP.get(op))
            return opts if opts is not None else unknown_of(left, right, why=f"comparison with unknown")
        if isinstance(left, EnumMember) or isinstance(right, EnumMember):
            eq = left == right
            return eq if op == "==" else (not eq if op == "!=" else Unknown("enum ordering"))
        if has_unknown(left) or has_unknown(right):
            return unknown_of(left, right, why="comparison with unknown")
        if not isinstance(left, PLAIN) or not isinstance(right, PLAIN):
            if op in ("==", "!="):
                eq = left is right
                return eq if op == "==" else not eq
            return Unknown("comparison of objects")
        try:
            return _CMP[op](left, right)
        except Exception:
            return Unknown(f"comparison {op} failed")

    def membership(self, item: Any, container: Any, positive: bool) -> Any:
        if isinstance(container, EnvView):
            found = self.world.env_contains(item)
            return found if isinstance(found, Unknown) else found == positive
        if isinstance(container, ConfigView):
            container = container.data
        if isinstance(container, Unknown) and container.options is not None and not isinstance(item, Unknown):
            results = {truth(self.membership(item, o, positive)) for o in container.options}
            if len(results) == 1 and None not in results:
                return results.pop()
        if isinstance(item, Unknown) and item.options is not None and not isinstance(container, Unknown):
            results = {truth(self.membership(o, container, positive)) for o in item.options}
            if len(results) == 1 and None not in results:
                return results.pop()
        if isinstance(item, Unknown) or isinstance(container, Unknown) or not isinstance(container, PLAIN):
            return unknown_of(item, container, why="membership with unknown")
        try:
            if isinstance(container, dict):
                found = item in container
                if found and isinstance(container[item], Maybe):
                    return Unknown(f"{item!r} present on some paths")
            else:
                elements = list(container) if not isinstance(container, str) else None
                if elements is None:
                    found = item in container
                elif any(same(item, e) or (not isinstance(e, Unknown) and item == e) for e in elements):
                    found = True
                elif any(isinstance(e, Unknown) for e in elements):
                    return Unknown("membership in a list with unknown elements")
                else:
                    found = False
        except TypeError:
            return Unknown("membership failed")
        return found if positive else not found

    def _e_un(self, node, state, module, line):
        value = self.eval(node[2], state, module, line)
        op = node[1]
        if op == "not":
            t = truth(value)
            if t is None:
                u = unknown_of(value, why=f"not {self._text(node[2])}")
                if isinstance(value, Unknown) and getattr(value, "truth", None) is not None:
                    u.truth = not value.truth  # type: ignore[attr-defined]
                return u
            return not t
        if isinstance(value, Unknown) or not isinstance(value, (int, float)):
            return unknown_of(value, why=f"{op} unknown")
        return {"-": operator.neg, "+": operator.pos, "~": operator.invert}[op](value)

    def _e_ifx(self, node, state, module, line):
        t = truth(self.eval(node[1], state, module, line))
        if t is True:
            return self.eval(node[2], state, module, line)
        if t is False:
            return self.eval(node[3], state, module, line)
        return join_values([self.eval(node[2], state, module, line), self.eval(node[3], state, module, line)],
                           self._text(node[1]))

    def _e_sub(self, node, state, module, line):
        base = self.eval(node[1], state, module, line)
        index_ir = node[2]
        if index_ir[0] == "slice":
            parts = [self.eval(p, state, module, line) if p is not None else None for p in index_ir[1:]]
            if isinstance(base, (list, tuple, str)) and not any(isinstance(p, Unknown) for p in parts):
                return base[slice(*parts)]
            return unknown_of(base, *parts, why=self._text(node))
        index = self.eval(index_ir, state, module, line)
        return self.subscript(base, index, state, module, node)

    def subscript(self, base, index, state, module, node=None):
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
        if isinstance(base, Unknown) or isinstance(index, Unknown) or not isinstance(base, PLAIN):
            if isinstance(base, (ClassVal, External, Builtin, GenericAlias)):
                return GenericAlias(base, index if isinstance(index, tuple) else (index,))
            return unknown_of(base, index, why=self._text(node) if node else "subscript")
        try:
            value = base[index]
        except Exception:
            return Unknown(self._text(node) if node else "subscript")
        # A key present on some paths only is read where code found it present.
        return value.value if isinstance(value, Maybe) and isinstance(base, dict) else value

    def _e_list(self, node, state, module, line):
        return self._elements(node[1], state, module, line)

    def _e_tuple(self, node, state, module, line):
        items = self._elements(node[1], state, module, line)
        return tuple(items) if isinstance(items, list) else items

    def _e_set(self, node, state, module, line):
        items = self._elements(node[1], state, module, line)
        if isinstance(items, list) and not has_unknown(items):
            try:
                return set(items)
            except TypeError:
                return Unknown("unhashable set")
        return unknown_of(*items, why="set with unknown elements") if isinstance(items, list) else items

    def _elements(self, elements, state, module, line):
        out: list[Any] = []
        for e in elements:
            if isinstance(e, list) and e and e[0] == "*" and len(e) == 2 and isinstance(e[1], list):
                items = self.iterate(self.eval(e[1], state, module, line), state, module)
                if items is None:
                    return Unknown("starred unknown")
                out.extend(items)
            else:
                out.append(self.eval(e, state, module, line))
        return out

    def _e_dict(self, node, state, module, line):
        out: dict[Any, Any] = {}
        for key_ir, value_ir in node[1]:
            value = self.eval(value_ir, state, module, line)
            if key_ir is None:
                if isinstance(value, dict):
                    out.update(value)
                else:
                    return Unknown("dict merge with unknown")
                continue
            key = self.eval(key_ir, state, module, line)
            if isinstance(key, Unknown):
                return Unknown("dict with unknown key")
            try:
                out[key] = value
            except TypeError:
                return Unknown("unhashable key")
        return out

    def _e_fstr(self, node, state, module, line):
        parts: list[str] = []
        unknown = None
        for part in node[1]:
            if isinstance(part, str):
                parts.append(part)
                continue
            value = self.eval(part[1], state, module, line)
            if isinstance(value, Unknown) or has_unknown(value) or not isinstance(value, PLAIN + (EnumMember,)):
                unknown = unknown_of(value, why="") if unknown is None else unknown
                parts.append("{" + self._text(part[1]) + "}")
                continue
            if isinstance(value, EnumMember):
                value = f"{value.owner}.{value.name}"
            parts.append(repr(value) if part[2] == "r" else str(value))
        text = "".join(parts)
        if unknown is not None:
            return Unknown(text, unknown.needs)
        return text

    def _e_comp(self, node, state, module, line):
        kind, elt, gens = node[1], node[2], node[3]
        results: list[Any] = []
        saved = state.locals
        state.locals = dict(saved)
        try:
            ok = self._comp(gens, 0, elt, kind, state, module, line, results)
        finally:
            state.locals = saved
        if not ok:
            return Unknown(f"comprehension over unknown")
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

    def _comp(self, gens, i, elt, kind, state, module, line, results) -> bool:
        if i == len(gens):
            if kind == "dict":
                results.append((self.eval(elt[0], state, module, line), self.eval(elt[1], state, module, line)))
            else:
                results.append(self.eval(elt, state, module, line))
            return True
        target, iter_ir, ifs = gens[i]
        items = self.iterate(self.eval(iter_ir, state, module, line), state, module)
        if items is None:
            return False
        for item in items[:5000]:
            self.assign(target, item, state, module, line)
            keep = True
            for cond in ifs:
                t = truth(self.eval(cond, state, module, line))
                if t is None:
                    return False
                if not t:
                    keep = False
                    break
            if keep and not self._comp(gens, i + 1, elt, kind, state, module, line, results):
                return False
        return True

    def _e_lambda(self, node, state, module, line):
        closure = dict(getattr(state, "closure", None) or {})
        closure.update(state.locals if state.locals is not module.globals else {})
        return LambdaVal(module, node[1], node[2], closure)

    def _e_walrus(self, node, state, module, line):
        value = self.eval(node[2], state, module, line)
        state.locals[node[1]] = value
        return value

    def iterate(self, value: Any, state: State, module: ModuleVal) -> list[Any] | None:
        value = self.deref(value, state)
        if isinstance(value, (list, tuple, set, frozenset, str)):
            return list(value)
        if isinstance(value, dict):
            return [Maybe(k) if isinstance(v, Maybe) else k for k, v in value.items()]
        if isinstance(value, ConfigView):
            return list(value.data.keys())
        if isinstance(value, ClassVal) and value.is_enum:
            return [v for v in value.attrs.values() if isinstance(v, EnumMember)]
        if isinstance(value, Obj):
            found, fn = value.cls.lookup("__iter__")
            return None
        if isinstance(value, Unknown) and value.options is not None:
            return None
        return None

    @staticmethod
    def _text(node: Any) -> str:
        from flagscan.facts.render import render

        return render(node)


def _is_exception(cls: ClassVal) -> bool:
    for base in cls.bases:
        name = base.name if isinstance(base, (ClassVal, Builtin)) else (base.path if isinstance(base, External) else "")
        if name.endswith(("Error", "Exception")) or name in ("BaseException",):
            return True
    return False


def _maybe(value: Any, pending: Unknown) -> Any:
    return falsy_unknown(pending.why, pending.needs, False)


def _combine_options(left: Any, right: Any, fn) -> Any:
    """Apply an operator over the candidate values of a joined Unknown, when all agree."""
    if fn is None:
        return None
    lefts = left.options if isinstance(left, Unknown) else (left,)
    rights = right.options if isinstance(right, Unknown) else (right,)
    if lefts is None or rights is None:
        return None
    results = []
    for a in lefts:
        for b in rights:
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return None
            try:
                results.append(fn(a, b))
            except Exception:
                return None
    if results and all(same(results[0], r) for r in results[1:]):
        return results[0]
    needs = (left.needs if isinstance(left, Unknown) else frozenset()) | (
        right.needs if isinstance(right, Unknown) else frozenset())
    return Unknown("combination of unknowns", needs, tuple(results) if len(results) <= 8 else None)


def _memo_key(args, kwargs):
    parts = []
    for value in list(args) + sorted(kwargs.items()):
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value in kwargs.items():
            value = value[1]
        if isinstance(value, (str, int, float, bool, type(None))):
            parts.append(value)
        elif isinstance(value, (ClassVal, Obj, FuncVal, External, EnumMember)):
            parts.append(("id", id(value)))
        else:
            return None
    return tuple(parts)


def _object_method(name: str):
    """object.__getattribute__ / object.__setattr__: attribute access without the
    class's own __getattr__ / __setattr__ hooks."""
    def call(interp: Interpreter, state: State, args, kwargs, module: ModuleVal, line: int):
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
        return None
    return call


def _logger_method(level: str):
    def log(interp: Interpreter, state: State, args, kwargs, module: ModuleVal, line: int):
        if level in ("warning", "warn", "info", "error", "debug", "critical", "exception"):
            message = args[0] if args else ""
            if len(args) > 1 and isinstance(message, str) and not has_unknown(args[1:]):
                try:
                    message = message % tuple(args[1:])
                except (TypeError, ValueError):
                    pass
            interp.record(state, "log", module, line, level=level, message=message)
        return None
    return log
