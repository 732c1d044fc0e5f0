"""evaluate: generators in the abstract interpreter (a `with` over a contextmanager, iterating a generator).

Calling a generator function runs none of its body (values.GeneratorVal). The body
runs where Python runs it, driven by a *sink* that says what a statement-level
`yield` does in that frame:

* `with cm() as x: BODY` over a `contextlib.contextmanager` function: the code
  before the yield runs, then BODY in the caller's frame (x bound to what was
  yielded), then the code after the yield. An exception BODY raises is raised at
  the yield, inside the generator's own try/except/finally, as `gen.throw` does;
  a `return`/`break`/`continue` of BODY resumes the generator normally and takes
  effect once it has finished (contextlib's `__exit__` calls `next(gen)`).
* iterating a generator (`for`, `list(...)`): the body runs to its end and every
  yielded value is an element, in order (a value yielded on some paths only is an
  element present on some paths).

While the generator's frame runs, the caller's locals travel in the generator's
locals under a key no Python name can take, so that the joins inside the
generator's body join them path by path too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.state import State, join_states, join_values
from flagscan.evaluate.interp.values import ExcVal, GeneratorVal, Maybe, ModuleVal, Unknown
from flagscan.facts import ir
from flagscan.facts.ir import view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
else:
    InterpreterParts = object  # the Protocol the part is checked against (parts.py); none at run time

_CALLER = "\0caller"     # the caller's locals while a contextmanager's generator runs
_YIELDED = "\0yielded"   # the values an iterated generator yielded so far
_EXIT = "with:"          # a return/break/continue of a `with` body, pending until the generator ends


@dataclass
class _WithSink:
    depth: int                 # the interpreter depth of the generator's frame
    caller: tuple[dict[str, Any], dict[str, Any] | None, str, tuple[str, ...]]  # (locals, closure, function, conds)
                               # of the `with` statement's frame
    target: Any                # the `as` target or None
    body: list[Any]
    module: ModuleVal          # the module of the `with` statement


@dataclass
class _CollectSink:
    depth: int


class GeneratorsMixin(InterpreterParts):
    """Generators of the Interpreter: contextmanager `with` statements and iteration."""

    def _sink(self) -> _WithSink | _CollectSink | None:
        sinks = getattr(self, "_sinks", None)
        return sinks[-1] if sinks and sinks[-1].depth == self.depth else None

    def _run_generator(self, gen: GeneratorVal, sink: _WithSink | _CollectSink,
                       state: State) -> list[tuple[str, State, Any]]:
        fn = gen.func
        state.locals = dict(gen.locals)
        state.closure = fn.closure
        state.function, state.conds = fn.ir["name"], ()
        if not hasattr(self, "_sinks"):
            self._sinks = []
        self.depth += 1
        sink.depth = self.depth
        self.stack.append((fn.qualname, fn.ir))
        self._sinks.append(sink)
        try:
            return self.exec_block(fn.ir["body"], state, fn.module)
        finally:
            self._sinks.pop()
            self.stack.pop()
            self.depth -= 1

    # -- with -------------------------------------------------------------------------
    def enter_generator(self, gen: GeneratorVal, target: Any, body: list[Any], state: State, module: ModuleVal,
                        line: int) -> list[tuple[str, State, Any]] | None:
        """`with gen as target: body`; None when the generator's yields are not all statements
        outside loops (the shape contextlib allows: one yield on each path)."""
        if not _yields_at_top(gen.func.ir["body"]):
            return None
        caller = (state.locals, getattr(state, "closure", None), state.function, state.conds)
        sink = _WithSink(0, caller, target, body, module)
        outcomes = self._run_generator(gen, sink, state)
        results: list[tuple[str, State, Any]] = []
        for kind, s, value in outcomes:
            carried = s.locals.get(_CALLER)
            entered = carried is not None
            if isinstance(carried, dict):
                caller_locals = {k: _unmaybe(k, v) for k, v in carried.items()}
            elif carried is None:
                caller_locals = dict(caller[0])
            else:  # yielded on some paths only: joined with a path that did not
                self.give_up("a contextmanager that yields on some paths only", gen.func.module, line,
                             "what the with statement does")
                caller_locals = {k: Unknown(f"{k} after a with statement not followed") for k in caller[0]}
            s.locals, s.function, s.conds = caller_locals, caller[2], caller[3]
            s.closure = caller[1]
            if kind in ("next", "return"):
                if entered:
                    results.append(("next", s, None))
                else:
                    results.append(("raise", s, ExcVal("RuntimeError", "generator didn't yield")))
            elif kind.startswith(_EXIT):
                results.append((kind[len(_EXIT):], s, value))
            else:
                results.append((kind, s, value))
        return results

    def yield_statement(self, value_ir: Any, targets: list[Any], state: State, module: ModuleVal,
                        line: int) -> list[tuple[str, State, Any]] | None:
        """A statement `yield v` / `x = yield v` in the frame a sink drives (None: no sink here)."""
        sink = self._sink()
        if sink is None:
            return None
        value = self.eval(value_ir, state, module, line) if value_ir is not None else None
        if isinstance(sink, _CollectSink):
            so_far = state.locals.get(_YIELDED, [])
            # paths that yielded different values were joined into one not known: it stays so
            state.locals[_YIELDED] = list(so_far) + [value] if isinstance(so_far, list) else so_far
            outcomes = [("next", state, None)]
        else:
            outcomes = self._with_body(sink, value, state, line)
        for kind, s, _ in outcomes:
            if kind == "next":
                for target in targets:   # what `send` gives: None (contextlib and for loops send nothing)
                    self.assign(target, None, s, module, line)
        return outcomes

    def yield_from_statement(self, text: str, state: State, module: ModuleVal,
                             line: int) -> list[tuple[str, State, Any]] | None:
        """A statement `yield from it` (the IR keeps it as source text) in the frame of a generator
        being iterated: every element of `it`, in order, is a value the generator yields
        (loader.py's `_get_all_weights`: `yield from self._get_weights_iterator(source)`). An
        iterable whose elements are not known makes what the generator yields not known. None
        when no iteration drives this frame (a contextmanager's) or the text is not one."""
        sink = self._sink()
        source = _yield_from_source(text, module)
        if not isinstance(sink, _CollectSink) or source is None:
            return None
        items = self.iterate(self.eval(source, state, module, line), state, module)
        so_far = state.locals.get(_YIELDED, [])
        if isinstance(so_far, list) and items is not None:
            state.locals[_YIELDED] = list(so_far) + list(items)
        else:
            state.locals[_YIELDED] = Unknown(f"what {text} yields")
        return [("next", state, None)]

    def _with_body(self, sink: _WithSink, value: Any, state: State, line: int) -> list[tuple[str, State, Any]]:
        if _CALLER in state.locals:
            self.give_up("a contextmanager that yields twice", sink.module, line, "what the with statement does")
            return [("next", state, None)]
        own = (state.locals, getattr(state, "closure", None), state.function, state.conds)
        state.locals, state.function, state.conds = sink.caller[0], sink.caller[2], sink.caller[3]
        state.closure = sink.caller[1]
        if sink.target is not None:
            self.assign(sink.target, value, state, sink.module, line)
        self._sinks.pop()
        frame = self.stack.pop()
        self.depth -= 1
        try:
            outcomes = self.exec_block(sink.body, state, sink.module)
        finally:
            self.depth += 1
            self.stack.append(frame)
            self._sinks.append(sink)
        results: list[tuple[str, State, Any]] = []
        for kind, s, v in outcomes:
            after = s.locals
            s.locals = dict(own[0])
            s.locals[_CALLER] = after
            s.function, s.conds = own[2], own[3]
            s.closure = own[1]
            results.append((kind if kind in ("next", "raise") else _EXIT + kind, s, v))
        return results

    # -- iteration --------------------------------------------------------------------
    def generator_items(self, gen: GeneratorVal, state: State) -> list[Any] | None:
        """The values the generator yields, running its body to the end on `state` (what it
        writes on the way happens before the consumer sees the first value: precise for
        generators that only compute their values). None when it could not be followed."""
        saved = (state.locals, getattr(state, "closure", None), state.function, state.conds)
        outcomes = self._run_generator(gen, _CollectSink(0), state)
        ends = [s for k, s, _ in outcomes if k in ("next", "return")]
        for _, s, exc in outcomes:
            if _ == "raise":
                s.locals, s.function, s.conds = saved[0], saved[2], saved[3]
                s.closure = saved[1]
                state.raised.append((s, exc))
        if not ends:
            state.locals, state.function, state.conds = saved[0], saved[2], saved[3]
            state.closure = saved[1]
            raise Dead()
        joined = join_states(ends, f"{gen.func.qualname}(...)")
        items = joined.locals.get(_YIELDED, [])
        state.adopt(joined)
        state.locals, state.function, state.conds = saved[0], saved[2], saved[3]
        state.closure = saved[1]
        return list(items) if isinstance(items, list) else None


def is_yield_from(node: Any) -> bool:
    """The IR of `yield from x`: an expression kept as its source text."""
    return isinstance(node, list) and len(node) == 2 and node[0] == "unk" and isinstance(node[1], str) \
        and view(ir.UnmodelledExpr, node).text.lstrip("(").startswith("yield from ")


def _yield_from_source(text: str, module: ModuleVal) -> Any:
    """The IR of the iterable of `yield from x` given as source text; None when it is not one
    (the text is cut at 200 characters)."""
    import ast

    from flagscan.extract.lower import Lowerer

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.YieldFrom):
        return None
    lowered = Lowerer(module.name, module.path, module.path.endswith("__init__.py")).expr(node.value)
    return None if lowered[0] == "unk" else lowered


def _unmaybe(name: str, value: Any) -> Any:
    """A caller's local bound by the with body on some paths only."""
    if isinstance(value, Maybe):
        return join_values([value.value, Unknown(f"{name} bound on one path only")], "with statement")
    return value


def _yields_at_top(body: list[Any]) -> bool:
    """Every yield of the function is a statement (`yield v`, `x = yield v`) outside loops."""
    for stmt in body:
        kind = stmt[0]
        value = view(ir.ExprStmt, stmt).value if kind == "expr" else view(ir.Assign, stmt).value if kind == "assign" \
            else None
        if value is not None and _is_yield(value):
            if _contains_yield(view(ir.Yield, value).value):
                return False
            continue
        if kind in ("for", "while"):
            if _contains_yield(stmt):
                return False
        elif kind == "if":
            branch = view(ir.If, stmt)
            if not (_yields_at_top(branch.body) and _yields_at_top(branch.orelse)) or _contains_yield(branch.test):
                return False
        elif kind == "try":
            t = view(ir.Try, stmt)
            if not (_yields_at_top(t.body) and all(_yields_at_top(handler_body) for _t, _n, handler_body in t.handlers)
                    and _yields_at_top(t.orelse) and _yields_at_top(t.finalbody)):
                return False
        elif kind == "with":
            w = view(ir.With, stmt)
            if not _yields_at_top(w.body) or _contains_yield(w.items):
                return False
        elif kind in ("def", "class"):
            continue
        elif _contains_yield(stmt):
            return False
    return True


def _is_yield(node: Any) -> bool:
    return isinstance(node, list) and bool(node) and node[0] == "yield"


def _contains_yield(node: Any) -> bool:
    if isinstance(node, dict):
        return False   # a nested function's body is its own
    if isinstance(node, list):
        if node and node[0] == "yield":
            return True
        if node and node[0] in ("def", "class", "lambda"):
            return False
        return any(_contains_yield(n) for n in node)
    return False
