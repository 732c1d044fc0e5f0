"""evaluate: what the parts of the abstract interpreter use of each other, as one Protocol.

The Interpreter is one class assembled from a mixin per stage of evaluation (statements,
expressions, operators, calls, generators) and its own core (interpreter.py: the heap,
assignment, lookup, give-ups). A part calls what another part defines (`self.eval`,
`self.call`, `self.exec_block`...). Each mixin is declared, for the type checker only, as
implementing InterpreterParts, so that such a call is checked against the signature here,
and mypy checks each part's own definitions of these members, and the assembled class,
against it. At run time the mixins derive from `object`: this module is never imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from flagscan.evaluate.interp.giveup import Stop
    from flagscan.evaluate.interp.state import State
    from flagscan.evaluate.interp.values import ClassVal, FuncVal, GeneratorVal, ModuleVal, Obj, Outside, Unknown
    from flagscan.evaluate.world import World
    from flagscan.extract.irstore import ModuleStore

# What running a statement or a block leaves: one (how it ended, the path's state, the value
# it carried: a return value, a raised exception...) per path that came out of it.
Exits = list[tuple[str, "State", Any]]


class InterpreterParts(Protocol):
    """The members the parts of the Interpreter use across part boundaries. Values are `Any`:
    an abstract value is any plain Python value or one of values.py's classes."""

    # -- the run's inputs and bounds (interpreter.py)
    store: ModuleStore
    world: World
    modules: dict[str, ModuleVal]
    import_effects: dict[str, bool]
    imported: dict[str, dict[int, dict[str, Any]]]
    builtins: dict[str, Any]
    declarations: dict[str, Any]
    declare_functions: set[str]
    max_depth: int
    call_budget: int
    trace: bool
    notes: list[str]
    _stops: list[Stop]

    # -- where the run is
    depth: int
    steps: int
    next_oid: int
    line: int
    # (given a value here: else mypy takes the first part that assigns `self.at` as declaring it)
    at: ModuleVal | None = None
    current_module: ModuleVal | None
    stack: list[tuple[str, Any]]
    sites: list[tuple[ModuleVal, int, str, tuple[str, ...]]]
    frames: list[dict[str, Any]]
    _sinks: list[Any]

    # -- what the run has learnt
    snapshots: dict[int, dict[str, Any]]
    assumed_needs: dict[str, frozenset[str]]
    rebound: dict[int, tuple[dict[str, Any], frozenset[str]]]
    external_writes: dict[str, Any]
    handed: set[int]
    written_anywhere: set[str]

    # -- the core (interpreter.py)
    def give_up(self, construct: str, module: ModuleVal | None = None, line: int = 0,
                what: str = "its value", needs: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Unknown: ...

    def bound(self, limit: str, module: ModuleVal | None = None, line: int = 0,
              what: str = "its value", needs: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Unknown: ...

    def assume(self, state: State, text: str, needs: frozenset[str] = frozenset()) -> State: ...

    def trace_unknown(self, module: ModuleVal, line: int, text: str, value: Any) -> None: ...

    def import_module(self, name: str, state: State) -> Any: ...

    def deref(self, value: Any, state: State) -> Any: ...

    def new_obj(self, cls: ClassVal, state: State, attrs: dict[str, Any] | None = None) -> Obj: ...

    def assign(self, target: Any, value: Any, state: State, module: ModuleVal, line: int) -> None: ...

    def delete(self, target: Any, state: State, module: ModuleVal, line: int) -> None: ...

    def record(self, state: State, kind: str, module: ModuleVal, line: int, **data: Any) -> None: ...

    def eval(self, node: Any, state: State, module: ModuleVal, line: int = 0) -> Any: ...

    def iterate(self, value: Any, state: State, module: ModuleVal) -> list[Any] | None: ...

    def loc(self, module: ModuleVal, line: int) -> str: ...

    def setattr(self, obj: Any, attr: str, value: Any, state: State, module: ModuleVal, line: int,
                raw: bool = False) -> None: ...

    def forget(self, container: Any, state: State, module: ModuleVal, line: int, why: str,
               needs: frozenset[str] | set[str] = frozenset()) -> Unknown: ...

    @staticmethod
    def _text(node: Any) -> str: ...

    # -- statements (statements.py)
    def exec_block(self, stmts: list[Any], state: State, module: ModuleVal) -> Exits: ...

    def function_scope(self, state: State, module: ModuleVal) -> dict[str, Any] | None: ...

    # -- expressions (expressions.py)
    def derived(self, base: Outside, why: str, state: State) -> Unknown: ...

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any: ...

    # -- operators (operators.py)
    def binop(self, op: str, left: Any, right: Any, state: State | None = None,
              module: ModuleVal | None = None) -> Any: ...

    def narrow(self, test_ir: Any, state: State, module: ModuleVal, holds: bool) -> None: ...

    def compare(self, op: str, left: Any, right: Any, state: State | None = None, module: ModuleVal | None = None,
                line: int = 0) -> Any: ...

    # -- calls (calls.py)
    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], state: State, module: ModuleVal,
             node: Any = None, line: int = 0) -> Any: ...

    def bind(self, value: Any, obj: Obj, state: State, module: ModuleVal) -> Any: ...

    def bind_params(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> dict[str, Any]: ...

    def decorate(self, deco: Any, fn: Any, state: State, module: ModuleVal) -> Any: ...

    def _consumed(self, value: Any, state: State, module: ModuleVal) -> Any: ...

    def hand_over(self, obj: Obj, args: list[Any], kwargs: dict[str, Any]) -> None: ...

    def outside_may_hold(self, obj: Obj, name: str) -> bool: ...

    # -- generators (generators.py)
    def enter_generator(self, gen: GeneratorVal, target: Any, body: list[Any], state: State, module: ModuleVal,
                        line: int) -> Exits | None: ...

    def yield_statement(self, value_ir: Any, targets: list[Any], state: State, module: ModuleVal,
                        line: int) -> Exits | None: ...

    def yield_from_statement(self, text: str, state: State, module: ModuleVal, line: int) -> Exits | None: ...
