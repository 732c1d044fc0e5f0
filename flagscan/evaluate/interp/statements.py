"""evaluate: statement executors of the abstract interpreter (blocks, branches, loops, definitions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import PLAIN, Budget, Dead, truth
from flagscan.evaluate.interp.generators import is_yield_from
from flagscan.evaluate.interp.import_effects import runs_tree_code
from flagscan.evaluate.interp.state import State, join_states, same, widen
from flagscan.evaluate.interp.values import (
    BoundMethod,
    Builtin,
    ClassVal,
    EnumMember,
    ExcVal,
    External,
    FuncVal,
    GeneratorVal,
    LazyImport,
    Maybe,
    ModuleVal,
    Obj,
    PartialVal,
    PartlySet,
    Unknown,
    element_of,
    mixin_of_enum,
)
from flagscan.facts import ir
from flagscan.facts.ir import Node, simple_name, view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import Exits, InterpreterParts
else:
    InterpreterParts = object  # the Protocol the part is checked against (parts.py); none at run time


# The executor of each statement kind (facts/ir.py), named after what it runs.
EXEC = {kind: f"exec_{name}" for kind, name in {
    "pass": "pass", "unk": "unmodelled", "del": "delete", "break": "break", "continue": "continue",
    "expr": "expression", "assign": "assign", "aug": "augmented_assign", "import": "import", "def": "def",
    "class": "class", "if": "if", "ret": "return", "raise": "raise", "assert": "assert", "for": "for",
    "while": "while", "try": "try", "with": "with"}.items()}


class StatementsMixin(InterpreterParts):
    """Statement executors of the Interpreter: blocks, branches, loops, try, class and def."""

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
        if isinstance(stmt[1], int):
            self.line, self.at = stmt[1], module
        try:
            handler: Callable[[Node, State, ModuleVal], Exits] = getattr(self, EXEC[kind])
        except KeyError:
            self.give_up(f"statement kind {kind!r}", module, stmt[1] if isinstance(stmt[1], int) else 0,
                         "what it does")
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

    def exec_pass(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        return [("next", state, None)]

    def exec_unmodelled(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        unk = view(ir.Unmodelled, stmt)
        self.give_up(f"a statement flagscan does not model ({unk.text})", module, unk.line, "what it does")
        return [("next", state, None)]

    def exec_delete(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        d = view(ir.Delete, stmt)
        if d.targets is None:   # an IR lowered before `del` kept its targets
            self.give_up("a del statement", module, d.line, "what it deletes")
            return [("next", state, None)]
        for target in d.targets:
            self.delete(target, state, module, d.line)
        return [("next", state, None)]

    def exec_break(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        return [("break", state, None)]

    def exec_continue(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        return [("continue", state, None)]

    def exec_expression(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, expr = view(ir.ExprStmt, stmt)
        if expr[0] == "yield":
            outcomes = self.yield_statement(view(ir.Yield, expr).value, [], state, module, line)
            if outcomes is not None:
                return outcomes
        if is_yield_from(expr):
            outcomes = self.yield_from_statement(view(ir.UnmodelledExpr, expr).text, state, module, line)
            if outcomes is not None:
                return outcomes
        self.eval(expr, state, module, line=line)
        return [("next", state, None)]

    def exec_assign(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, targets, expr = view(ir.Assign, stmt)
        if expr[0] == "yield":
            outcomes = self.yield_statement(view(ir.Yield, expr).value, targets, state, module, line)
            if outcomes is not None:
                return outcomes
        value = self.eval(expr, state, module, line=line)
        for target in targets:
            self.assign(target, value, state, module, line)
        return [("next", state, None)]

    def exec_augmented_assign(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, target, op, expr = view(ir.AugAssign, stmt)
        current = self.eval(target, state, module, line=line)
        value = self.eval(expr, state, module, line=line)
        if isinstance(current, list) and op == "+" and isinstance(value, (list, tuple)):
            current.extend(value)  # in-place, as Python does for lists
            return [("next", state, None)]
        self.assign(target, self.binop(op, current, value, state, module), state, module, line)
        return [("next", state, None)]

    def exec_import(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, imported = view(ir.Import, stmt)
        for local, mod, attr in imported:
            if self._not_installed(mod):
                # a package the run does not have (--package X=absent, the installed environment):
                # Python raises here, and `except ImportError` decides
                exc = ExcVal("ImportError", f"No module named {mod.split('.')[0]!r}")
                self.record(state, "raise", module, line, value=exc.type_name, message=exc.message)
                return [("raise", state.fork(), exc)]
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
            if mod not in self.modules and self._runs_tree_code(mod):
                self.import_module(mod, state)  # its import registers something: Python runs it now
            state.locals[local] = LazyImport(mod, attr)
        return [("next", state, None)]

    def _runs_tree_code(self, mod: str) -> bool:
        """Whether importing `mod` runs the tree's code (flagscan/evaluate/interp/import_effects.py)."""
        found = self.import_effects.get(mod)
        if found is None:
            tree = self.store.get(mod) if self.store.module_file(mod) is not None else None
            found = self.import_effects[mod] = tree is not None and runs_tree_code(self.store, mod, tree)
        return found

    def _not_installed(self, mod: str) -> bool:
        """Whether `mod` is outside the tree and the run's packages say it is not installed."""
        if self.world.dists is None or not mod or self.store.module_file(mod.split(".")[0]) is not None:
            return False
        return self.world.module_present(mod) is False

    def _defines(self, module: str, name: str) -> bool:
        """Whether a package's __init__ binds `name` itself (then that binding wins)."""
        tree = self.store.get(module)
        if tree is None:
            return False
        for stmt in tree["body"]:
            if stmt[0] == "def" and view(ir.Def, stmt).func.get("name") == name:
                return True
            if stmt[0] == "class" and view(ir.ClassDef, stmt).cls.get("name") == name:
                return True
            if stmt[0] == "assign" and any(t[0] == "n" and view(ir.Name, t).id == name
                                           for t in view(ir.Assign, stmt).targets):
                return True
        return False

    def function_scope(self, state: State, module: ModuleVal) -> dict[str, Any] | None:
        """The names a function (or lambda) defined here sees besides its own and the module's:
        the enclosing function's. A class body's names are not among them: Python resolves a
        method's free names past the class (0.5.23 runtime_context.py ForwardFlags.scoped calls
        the builtin `set(kwargs)`, beside the class's own method `set`)."""
        scope = state.locals
        scopes = self.__dict__.get("_class_scopes", {})
        while id(scope) in scopes:
            scope = scopes[id(scope)]
        return scope if scope is not module.globals else None

    def exec_def(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        func = view(ir.Def, stmt).func
        closure = self.function_scope(state, module)
        fn: Any = FuncVal(module, func, closure)
        # A function that stands for a given fact keeps its identity: its
        # decorators (caches, retries) would only hide it from the world.
        if fn.qualname not in self.world.sglang:
            for deco in reversed(func["decorators"]):
                fn = self.decorate(deco, fn, state, module)
        state.locals[func["name"]] = fn
        return [("next", state, None)]

    def exec_class(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        body = view(ir.ClassDef, stmt).cls
        bases = [self.eval(b, state, module) for b in body["bases"]]
        cls = ClassVal(body["name"], module, body, bases)
        for base in bases:
            path = base.path if isinstance(base, External) else (base.name if isinstance(base, ClassVal) else "")
            tail = path.rsplit(".", 1)[-1]
            if tail in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag") or (isinstance(base, ClassVal) and base.is_enum):
                cls.is_enum = True
            if tail in ("Struct", "NamedTuple") or (isinstance(base, ClassVal) and base.is_dataclass):
                # a record whose fields are its annotations, in order, each given by position or
                # keyword or taking its default: a typing.NamedTuple builds its instances so too
                cls.is_dataclass = True
            if tail == "NamedTuple" or (isinstance(base, ClassVal) and base.is_namedtuple):
                cls.is_namedtuple = True
        namespace: dict[str, Any] = {}
        saved = state.locals
        state.locals = namespace
        scopes = self.__dict__.setdefault("_class_scopes", {})
        scopes[id(namespace)] = saved   # the scope the class body's functions see (function_scope)
        try:
            for inner in body["body"]:
                try:
                    outcomes = self.exec_stmt(inner, state, module)
                except (Dead, Budget):
                    continue
                nexts = [s for k, s, _ in outcomes if k == "next"]
                if nexts:
                    joined = join_states(nexts, "class body")
                    state.heap, state.chain, state.owned = joined.heap, joined.chain, joined.owned
                    state.modified, state.outer = joined.modified, joined.outer
                    state.heap_shared = joined.heap_shared
        finally:
            state.locals = saved
            scopes.pop(id(namespace), None)
        for key, value in namespace.items():
            if isinstance(value, FuncVal) and value.owner is None:
                value.owner = cls
            if cls.is_enum and not key.startswith("_") and not isinstance(value, (FuncVal, ClassVal, Builtin)):
                mixin = mixin_of_enum(cls)
                if mixin is not None and isinstance(value, tuple) and all(isinstance(v, (int, str)) for v in value):
                    # an int (str) enum's member built from a tuple is int(*tuple): `DeepSeekV3 = (2,)` is 2
                    try:
                        value = mixin(*value)
                    except (TypeError, ValueError):
                        pass
                value = EnumMember(cls.name, key, value, cls)
            cls.attrs[key] = value
        result: Any = cls
        for deco in reversed(body["decorators"]):
            if (deco[0] == "call" and simple_name(view(ir.Call, deco).func) == "dataclass") \
                    or simple_name(deco) == "dataclass":
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
        state.locals[body["name"]] = result
        return [("next", state, None)]

    def exec_if(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        # the source text (the last field) is for the read extractor
        line, test_ir, body, orelse, text, _source = view(ir.If, stmt)
        test = self.eval(test_ir, state, module, line=line)
        t = truth(test)
        if t is True:
            return self._branch(body, state, module, text)
        if t is False:
            return self._branch(orelse, state, module, f"not ({text})")
        if self.trace:
            self.trace_unknown(module, line, text, test)
        other = self.assume(state, text, test.needs if isinstance(test, Unknown) else frozenset())
        self.narrow(test_ir, state, module, True)
        self.narrow(test_ir, other, module, False)
        return self._branch(body, state, module, text) + self._branch(orelse, other, module, f"not ({text})")

    def _branch(self, stmts: list[Any], state: State, module: ModuleVal, cond: str) -> Exits:
        saved = state.conds
        state.conds = saved + (cond,)
        outcomes = self.exec_block(stmts, state, module)
        for _, s, _v in outcomes:
            s.conds = saved
        return outcomes

    def exec_return(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, expr = view(ir.Return, stmt)
        value = self.eval(expr, state, module, line=line) if expr is not None else None
        return [("return", state, value)]

    def exec_raise(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        # A raising path keeps its own state object: the caller may later adopt the
        # joined returning paths into the object it passed in.
        line, expr = view(ir.Raise, stmt)
        if expr is None:
            current = state.locals.get("__exception__")
            if isinstance(current, ExcVal):
                return [("raise", state.fork(), current)]
        exc = self.eval(expr, state, module, line=line) if expr is not None else ExcVal("Exception", "re-raised")
        if isinstance(exc, ClassVal):
            exc = ExcVal(exc.name, "", exc)
        if not isinstance(exc, ExcVal):
            exc = ExcVal(getattr(exc, "path", "Exception"), exc if isinstance(exc, (str, Unknown)) else "")
        self.record(state, "raise", module, line, value=exc.type_name, message=exc.message)
        return [("raise", state.fork(), exc)]

    def exec_assert(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        # the source text (the last field) is for the read extractor
        line, test_ir, msg_ir, text, _source = view(ir.Assert, stmt)
        test = self.eval(test_ir, state, module, line=line)
        t = truth(test)
        if t is True:
            return [("next", state, None)]
        failing = state.fork()
        if t is None:
            failing.assumptions = failing.assumptions + (f"not ({text})",)
            state.assumptions = state.assumptions + (text,)
            self.assert_assumed(text, test)
        message = self.eval(msg_ir, failing, module, line=line) if msg_ir is not None else text
        exc = ExcVal("AssertionError", message)
        self.record(failing, "raise", module, line, value="AssertionError", message=message)
        if t is False:
            return [("raise", failing, exc)]
        return [("next", state, None), ("raise", failing, exc)]

    def assert_assumed(self, text: str, test: Any) -> None:
        """An `assert` whose test is not known: both outcomes are followed (a hook for phases
        that say what such a test needs)."""

    def exec_for(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, target, iter_ir, body, orelse = view(ir.For, stmt)
        raw = self.eval(iter_ir, state, module, line=line)
        iterable = self.iterate(raw, state, module)
        if iterable is None:
            # Unknown iteration: one pass with an unknown element, joined with none. The pass
            # assumes an element exists (what it raises or writes is not certain: the iterable
            # may be empty), with what the iterable needs; the join drops the assumption.
            entered = f"the loop over {self._text(iter_ir)} has an element"
            skip = self.assume(state, entered, raw.needs if isinstance(raw, Unknown) else frozenset())
            self.assign(target, element_of(raw, self._text(iter_ir)), state, module, line)
            outcomes = self.exec_block(body, state, module)
            nexts = [s for k, s, _ in outcomes if k in ("next", "continue", "break")] + [skip]
            rest = [o for o in outcomes if o[0] in ("return", "raise")]
            after = widen(join_states(nexts, "loop"), skip)
            if any(k == "return" for k, _s, _v in rest):
                # the body may return on an element not known: what follows the loop runs
                # only when none did, which is as unknown as the elements are
                text = f"the loop over {self._text(iter_ir)} ended without returning"
                after.assumptions = after.assumptions + (text,)
                self.assumed_needs[text] = self.assumed_needs.get(text, frozenset()) | (
                    raw.needs if isinstance(raw, Unknown) else frozenset())
            return [("next", after, None)] + rest
        current: State | None = state
        finished: list[State] = []
        results: list[tuple[str, State, Any]] = []
        if len(iterable) > 2000:
            iterable = None
            self.bound(f"a loop over {len(iterable or [])} elements", module, line, "what the loop writes")
            return self.exec_for(["for", line, target, ["unk", "a long iterable"], body, orelse], state, module)
        what = ""
        for item in iterable:
            if current is None:
                break
            skipped = None
            if isinstance(item, Maybe):  # present on some paths: run the body on one, skip on the other
                skipped = current.fork()
                what = what or f"an element of {self._text(iter_ir)} that exists on some paths"
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

    def exec_while(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, test_ir, body = view(ir.While, stmt)
        # what the loop starts from, kept intact (writes copy first), for a loop cut at its bound
        entry_locals, entry_heap = dict(state.locals), dict(state.heap)
        state.owned, state.owned_values = set(), set()
        current: State | None = state
        results: list[tuple[str, State, Any]] = []
        exits: list[State] = []
        # `while True:` (a constant test): the loop is left only from its body
        forever = ir.is_kind(test_ir, "c") and bool(view(ir.Const, test_ir).value)
        widened: set[Any] | None = None   # what the passes of such a loop change, once one both left and went on
        for _ in range(200):
            if current is None:
                break
            t = truth(self.eval(test_ir, current, module, line=line))
            if t is False:
                exits.append(current)
                current = None
                break
            if t is None:
                entry = current.fork()
                exits.append(entry)
            outcomes = self.exec_block(body, current, module)
            breaks = [s for k, s, _ in outcomes if k == "break"]
            exits.extend(breaks)
            leaves = [o for o in outcomes if o[0] in ("return", "raise")]
            results.extend(leaves)
            conts = [s for k, s, _ in outcomes if k in ("next", "continue")]
            current = join_states(conts, "loop") if conts else None
            if forever and current is not None and (widened is not None or breaks or leaves):
                # A pass of a `while True:` that may both leave and go on (`if cursor == 0: break`
                # with the cursor not known): what decides the passes after it is not known
                # either. What the passes change becomes unknown and the body runs again from
                # there, until a pass changes nothing more (its exits then stand for any later
                # pass's); the passes do not fall through, so the last one's going on is no exit.
                changed = _changed_since(current, entry_locals, entry_heap)
                if widened is not None and changed <= widened:
                    current = None
                    break
                widened = changed | (widened or set())
                current = _unbounded(current, entry_locals, entry_heap, "a pass of a while True loop not counted")
                continue
            if t is None:
                # one more pass on an unknown test stands for any number of them
                if current is not None:
                    exits.append(current)
                current = None
                if exits:
                    results.append(("next", widen(join_states(exits, "loop"), entry), None))
                return results
        if current is not None:
            self.bound("a while loop that ran 200 passes", module, line, "what the loop writes")
            exits.append(_unbounded(current, entry_locals, entry_heap, "a while loop cut at 200 passes"))
        if exits:
            results.append(("next", join_states(exits, "loop"), None))
        return results

    def exec_try(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        _line, body, handlers, orelse, final = view(ir.Try, stmt)
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
                _types, name, handler_body = handler
                if name:
                    s.locals[name] = value
                s.locals["__exception__"] = value  # what a bare `raise` re-raises
                results.extend(self.exec_block(handler_body, s, module))
            else:
                results.append((kind, s, value))
        if final:
            finals = []
            for kind, s, value in results:
                for k2, s2, v2 in self.exec_block(final, s, module):
                    finals.append((kind, s2, value) if k2 == "next" else (k2, s2, v2))
            results = finals
        return results

    def _match_handler(self, handlers: list[Node], exc: Any, state: State, module: ModuleVal) -> Node | None:
        name = exc.type_name if isinstance(exc, ExcVal) else ""
        for handler in handlers:
            types_ir = handler[0]   # a handler is [type_expr | None, name | None, [stmt...]]
            if types_ir is None:
                return handler
            types = self.eval(types_ir, state, module)
            names = [self._type_name(t) for t in (types if isinstance(types, tuple) else (types,))]
            bases = exc.bases if isinstance(exc, ExcVal) else ()
            if any(n in ("Exception", "BaseException", name) or n in bases or n == "" for n in names):
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

    def exec_with(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        line, items, body = view(ir.With, stmt)
        if len(items) > 1:   # `with a, b: body` is `with a: with b: body`
            return self.exec_with(["with", line, items[:1], [["with", line, items[1:], body]]], state, module)
        for expr, target in items:
            value = self.eval(expr, state, module, line=line)
            if isinstance(value, GeneratorVal) and value.context:
                outcomes = self.enter_generator(value, target, body, state, module, line)
                if outcomes is not None:
                    return outcomes
                self.give_up(f"a contextmanager whose yields are not statements outside loops "
                             f"({value.func.qualname})", module, line, "what the with statement does")
            if target is not None:
                self.assign(target, Unknown(f"context of {self._text(expr)}") if not isinstance(value, PLAIN) else value,
                            state, module, line)
        return self.exec_block(body, state, module)


def _changed_since(state: State, entry_locals: dict[str, Any], entry_heap: dict[int, dict[str, Any]]
                   ) -> set[Any]:
    """The locals (names) and attributes ((oid, name)) of `state` that differ from the loop's start."""
    out: set[Any] = {k for k, v in state.locals.items() if k not in entry_locals or not same(v, entry_locals[k])}
    for oid, attrs in state.heap.items():
        old = entry_heap.get(oid)
        if attrs is not old:
            out.update((oid, k) for k, v in attrs.items() if old is None or k not in old or not same(v, old[k]))
    return out


def _unbounded(state: State, entry_locals: dict[str, Any], entry_heap: dict[int, dict[str, Any]],
               why: str) -> State:
    """A loop still running when flagscan stops following it: every local and attribute
    its passes changed (from `entry_*`, the loop's start) may take any value later passes
    give it, so it becomes unknown; what no pass changed keeps its value."""
    by_object: dict[int, list[str]] = {}
    for key in _changed_since(state, entry_locals, entry_heap):
        if isinstance(key, tuple):
            by_object.setdefault(key[0], []).append(key[1])
        else:
            value = state.locals[key]
            state.locals[key] = Unknown(f"{key} ({why})", getattr(value, "needs", frozenset()))
    for oid, changed in by_object.items():
        attrs = state.heap[oid]
        fresh = dict(attrs)
        for k in changed:
            widened = Unknown(f".{k} ({why})", getattr(attrs[k], "needs", frozenset()))
            # an attribute that some passes set is still unset on the others
            fresh[k] = PartlySet(attrs[k].why, widened.needs, widened) if isinstance(attrs[k], PartlySet) \
                else widened
        state.heap_w()[oid] = fresh
        state.owned.add(oid)
        state.modified.add(oid)
    return state
