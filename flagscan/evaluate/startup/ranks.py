"""evaluate: the startup phase: torch.distributed's default process group and this process's rank.

SGLang sets its parallel world sizes in its own Python: ModelRunner.init_torch_distributed
calls init_distributed_environment, which calls `torch.distributed.init_process_group(
world_size=tp_size * pp_size, ...)`, then initialize_model_parallel, which builds one
GroupCoordinator per group (distributed/parallel_state.py): each keeps, of the rank lists it
is given, the one that holds `torch.distributed.get_rank()`, and its world_size is len(ranks).
get_tensor_model_parallel_world_size() and the MoE getters read those groups.

What these outside calls mean is rule data (rules/startup.toml [distributed]): once the
default group is made, its world size is the one it was made with; the rank of this process
is a fact of the run, one of range(world size). A tree function whose own body asks for the
rank is run once per rank, each run on its own path assuming that rank, and the paths are
joined: what is the same on every rank (a group's world size) is known, what is not (the
process's rank in its group) is not, and a raise on some ranks only depends on the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.state import State, join_states, join_values
from flagscan.evaluate.interp.values import External, FuncVal, LazyImport, Unknown
from flagscan.facts import ir
from flagscan.facts.ir import dotted, view

_GROUP = -900  # heap key of the default process group's facts on a path (no object has it)
_RANK_NEED = "runtime:the rank of this process"


@dataclass(frozen=True, slots=True)
class Distributed:
    """rules/startup.toml [distributed]: which outside calls make, ask about and rank the default group."""

    init: frozenset[str]
    world_size_keyword: str
    world_size_position: int
    initialized: frozenset[str]
    world_size: frozenset[str]
    rank: frozenset[str]
    group_keyword: str
    max_ranks: int

    @property
    def paths(self) -> frozenset[str]:
        return self.init | self.initialized | self.world_size | self.rank


def distributed(rules: dict[str, Any]) -> Distributed | None:
    d = rules.get("distributed")
    if not d:
        return None
    arg = d["init_world_size"]
    return Distributed(frozenset(d["init"]), arg["keyword"], int(arg["position"]), frozenset(d["is_initialized"]),
                       frozenset(d["world_size"]), frozenset(d["rank"]), d["group_keyword"], int(d["max_ranks"]))


def default_group(state: State) -> dict[str, Any]:
    """What this path knows of the default process group ({} before it is made)."""
    return state.heap.get(_GROUP, {})


if TYPE_CHECKING:
    from flagscan.evaluate.world import World as _Combined
else:
    _Combined = object  # the World it is combined with (run.py StartupWorld): its members, for mypy only


class ProcessGroups(_Combined):
    """World mixin of the startup phase: the default process group and the per-rank runs."""

    dist: Distributed | None = None
    dist_on: bool = False  # set once the resolution is done (the startup entries run)

    def call_external(self, interp: Any, func: External, args: Any, kwargs: Any, state: State, module: Any,
                      line: int) -> Any:
        d = self.dist
        if d is not None and self.dist_on and func.path in d.paths:
            return self._dist_call(interp, d, func.path, list(args), dict(kwargs), state)
        return super().call_external(interp, func, args, kwargs, state, module, line)

    def _dist_call(self, interp: Any, d: Distributed, path: str, args: list[Any], kwargs: dict[str, Any],
                   state: State) -> Any:
        group = default_group(state)
        if path in d.init:
            size = kwargs.get(d.world_size_keyword, args[d.world_size_position]
                              if len(args) > d.world_size_position else None)
            facts = state.writable(_GROUP)
            facts["initialized"] = True
            facts["world_size"] = size if isinstance(size, int) and size > 0 else Unknown(
                "the world size of the default process group", {f"runtime:{path}"})
            return None
        if path in d.initialized:
            # the scheduler process is fresh: nothing made the group before its model runner
            return group.get("initialized", False)
        asked = kwargs.get(d.group_keyword, args[0] if args else None)
        if asked is not None or not group.get("initialized"):
            # another group's, or asked before the group exists: not modelled
            return Unknown(f"{path}(...)", {f"runtime:{path}"})
        if path in d.world_size:
            return group.get("world_size", Unknown("the world size", {f"runtime:{path}"}))
        ranks: list[tuple[int, int]] = self.__dict__.get("_ranks", [])
        if ranks and interp.stack and id(interp.stack[-1][1]) == ranks[-1][0]:
            return ranks[-1][1]   # asked in the body of the function run for this rank
        return Unknown("the rank of this process", {_RANK_NEED})

    def function_override(self, interp: Any, fn: FuncVal, args: Any, kwargs: Any, state: State) -> Any:
        d = self.dist
        if d is not None and self.dist_on and not self.__dict__.get("_ranks") and self._asks_rank(interp, d, fn):
            size = default_group(state).get("world_size")
            if isinstance(size, int) and 1 < size <= d.max_ranks:
                return self._per_rank(interp, fn, list(args), dict(kwargs), state, size)
        return super().function_override(interp, fn, args, kwargs, state)

    def _per_rank(self, interp: Any, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State,
                  size: int) -> Any:
        """`fn` called once per rank, each on its own path assuming that rank; the paths joined."""
        ranks: list[tuple[int, int]] = self.__dict__.setdefault("_ranks", [])
        paths: list[tuple[State, Any]] = []
        for rank in range(size):
            s = state.fork() if rank < size - 1 else state
            text = f"the rank of this process is {rank}"
            s.assumptions = s.assumptions + (text,)
            interp.assumed_needs[text] = frozenset({_RANK_NEED})
            ranks.append((id(fn.ir), rank))
            try:
                paths.append((s, interp.call_function(fn, list(args), dict(kwargs), s)))
            except Dead:
                pass
            finally:
                ranks.pop()
            if s is not state and s.raised:
                state.raised.extend(s.raised)
                s.raised = []
        if not paths:
            raise Dead()
        why = f"{fn.qualname}(...) on each rank"
        state.adopt(join_states([s for s, _ in paths], why))
        value = join_values([v for _, v in paths], why)
        if isinstance(value, Unknown) and not value.needs:
            value = Unknown(value.why, {_RANK_NEED}, value.options, value.truth)   # it differs by rank
        return value

    def _asks_rank(self, interp: Any, d: Distributed, fn: FuncVal) -> bool:
        """Whether `fn`'s own body calls one of the rank calls with no group (resolved through its
        module's imports), cached per function."""
        cache: dict[int, bool] = self.__dict__.setdefault("_asks", {})
        key = id(fn.ir)
        if key not in cache:
            imports: dict[int, dict[str, str]] = self.__dict__.setdefault("_imports", {})
            names = imports.get(id(fn.module))
            if names is None:
                found = ((k, _outside(interp, v)) for k, v in fn.module.globals.items())
                names = imports[id(fn.module)] = {k: p for k, p in found if p}
            cache[key] = _calls(fn.ir.get("body", []), names, d.rank)
        return cache[key]


def _outside(interp: Any, value: Any) -> str | None:
    """The dotted path of a module global that names something outside the tree (an import of it)."""
    if isinstance(value, External):
        return value.path
    if isinstance(value, LazyImport) and not interp.store.module_file(value.module):
        return f"{value.module}.{value.attr}" if value.attr else value.module
    return None


def _calls(node: Any, names: dict[str, str], paths: frozenset[str]) -> bool:
    """Whether the IR holds a call with no arguments of one of `paths`."""
    if not isinstance(node, list):
        return False
    if node and node[0] == "call" and len(node) > 3:
        call = view(ir.Call, node)
        if not call.args and not call.keywords and dotted(call.func, names) in paths:
            return True
    return any(_calls(child, names, paths) for child in node if isinstance(child, list))
