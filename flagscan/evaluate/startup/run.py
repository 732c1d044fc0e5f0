"""evaluate: the startup phase: SGLang's own startup code run abstractly on the resolved settings.

After the resolution (flagscan/evaluate/resolution/resolve.py) has produced the ServerArgs
record, the startup entry of rules/startup.toml (the TP worker, which builds the
ModelConfig and the ModelRunner: model class of the architecture, attention
backend, communicators, CUDA graphs) is constructed by the same three-valued
interpreter, on the same heap. What it raises is a startup rejection: certain when
no unknown test was assumed on its path, possible when every assumed test needs
only facts an operator can give (rules/startup.toml [needs]), and otherwise counted
as depending on the run (sockets, torch.distributed, tensors), not reported. What
it writes to the record is a setting changed at startup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from flagscan.evaluate.gates.store import _globals_in
from flagscan.evaluate.interp.base import Budget, Dead
from flagscan.evaluate.interp.state import State, join_states
from flagscan.evaluate.interp.values import ClassVal, ExcVal, FuncVal, LazyImport, ModuleVal, Obj, Unknown
from flagscan.evaluate.startup.ranks import ProcessGroups, distributed
from flagscan.evaluate.startup.results import StartupRaise, StartupResult, StartupWrite
from flagscan.evaluate.startup.serving import batch_kind
from flagscan.evaluate.startup.specs import bare_instance, dotted_object, init_params, spec_value
from flagscan.evaluate.world import World
from flagscan.facts import ir
from flagscan.facts.ir import view
from flagscan.facts.render import conjunction


class _Registries:
    """Registry functions answered from the tree's files (rules/startup.toml [[registry]])."""

    def __init__(self, root: Path, rules: list[dict[str, Any]]) -> None:
        self.root = Path(root)
        self.by_function = {r["function"]: r for r in rules}
        self._tables: dict[tuple[str, str], dict[str, Any]] = {}

    def answer(self, qualname: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        rule = self.by_function.get(qualname)
        if rule is None:
            return NotImplemented
        package = args[0] if args else kwargs.get("package_name")
        if not isinstance(package, str):
            return Unknown(f"{qualname}(...) of an unknown package", {"runtime:model registry package"})
        return dict(self.table(package, rule["attribute"]))

    def table(self, package: str, attribute: str) -> dict[str, Any]:
        """{class name: LazyImport} for each `attribute = X` / `= [X, Y]` in the package's modules."""
        key = (package, attribute)
        if key not in self._tables:
            pattern = re.compile(rb"^" + re.escape(attribute.encode()) + rb"\s*=\s*(\[[^\]]*\]|[A-Za-z_][\w.]*)",
                                 re.M)
            out: dict[str, Any] = {}
            folder = self.root.joinpath(*package.split("."))
            for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
                if path.name == "__init__.py":
                    continue
                data = path.read_bytes()
                if attribute.encode() not in data:
                    continue
                module = f"{package}.{path.stem}"
                for m in pattern.finditer(data):
                    names = re.findall(rb"[A-Za-z_][\w.]*", m.group(1))
                    for raw in names:
                        name = raw.decode()
                        out.setdefault(name.rpartition(".")[2], LazyImport(module, name.rpartition(".")[2]))
            self._tables[key] = out
        return self._tables[key]


@dataclass
class StartupWorld(ProcessGroups, World):
    """The world of the resolution, plus the registries startup code looks classes up in and,
    once the startup entries run, torch.distributed's default group (flagscan/evaluate/startup/ranks.py)."""

    registries: _Registries | None = None

    def function_override(self, interp: InterpreterParts, fn: FuncVal, args: list[Any], kwargs: dict[str, Any],
                          state: State) -> Any:
        if self.registries is not None:
            answer = self.registries.answer(fn.qualname, list(args), dict(kwargs))
            if answer is not NotImplemented:
                return answer
        return super().function_override(interp, fn, args, kwargs, state)


if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter as _Combined
    from flagscan.evaluate.interp.parts import Exits, InterpreterParts
    from flagscan.evaluate.startup.interpreter import StartupInterpreter
    from flagscan.facts.ir import Node
else:
    _Combined = object  # the Interpreter it is combined with (predict.py): its members, for mypy only


class GlobalWrites(_Combined):
    """`global NAME` in a function: its assignments to NAME rebind the module global.

    SGLang publishes the resolved record this way (`set_global_server_args_for_scheduler`
    in server_args.py, read back by `get_global_server_args()` all over the startup
    path). A global rebound on a path that assumed an unknown test is, for every other
    path, only possibly rebound: it becomes unknown unless both values agree."""

    _declared: ClassVar[dict[int, frozenset[str]]] = {}

    def assign(self, target: Any, value: Any, state: State, module: ModuleVal, line: int) -> None:
        stack = getattr(self, "stack", None)
        if target[0] == "n" and stack and view(ir.Name, target).id in _globals_of(stack[-1][1]):
            name = view(ir.Name, target).id
            # this path, and every path that forks from it later, sees the value it bound (the
            # lazy-initialisation idiom `global _p; if _p is None: _p = make(); return _p`,
            # platforms/__init__.py's current_platform in 0.5.23)
            state.writable(_rebound_oid(module))[name] = value
            if state.assumptions and not _same(module.globals.get(name), value):
                value = Unknown(f"{name} (rebound on some paths)", {f"runtime:{module.name}.{name}"})
            module.globals[name] = value
            return
        super().assign(target, value, state, module, line)

    def lookup(self, name: str, state: State, module: ModuleVal) -> Any:
        rebound = state.heap.get(_rebound_oid(module))
        if rebound and name in rebound and name not in state.locals:
            closure = getattr(state, "closure", None)
            if not (closure and name in closure):
                return self.deref(rebound[name], state)
        return super().lookup(name, state, module)


_REBOUND: dict[str, int] = {}


def _rebound_oid(module: ModuleVal) -> int:
    """The heap key of the module's globals rebound on a path (negative, below the
    resolution's environment key -1: no object has it)."""
    oid = _REBOUND.get(module.name)
    if oid is None:
        oid = _REBOUND[module.name] = -1000 - len(_REBOUND)
    return oid


class SurvivalTracking(_Combined):
    """Which assumptions only say that an earlier raise did not fire.

    A path that went past `if X: raise ...` or `assert X` (X unknown) assumes the
    raise did not happen. For what that path does later this is no condition on the
    configuration but the premise of getting there at all: a later write or raise is
    certain once startup reaches it. The assumption's text is recorded when one side
    of an unknown branch ends only in raises while the other goes on."""

    def exec_if(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        n = len(state.assumptions)
        outcomes = super().exec_if(stmt, state, module)
        sides: dict[str, set[str]] = {}
        for kind, s, _v in outcomes:
            if len(s.assumptions) > n:
                sides.setdefault(s.assumptions[n], set()).add(kind)
        if len(sides) == 2:
            (a, ka), (b, kb) = sides.items()
            if ka == {"raise"} and kb - {"raise"}:
                self.survival.add(b)
            elif kb == {"raise"} and ka - {"raise"}:
                self.survival.add(a)
        return outcomes

    def exec_assert(self, stmt: Node, state: State, module: ModuleVal) -> Exits:
        n = len(state.assumptions)
        outcomes = super().exec_assert(stmt, state, module)
        for kind, s, _v in outcomes:
            if kind == "next" and len(s.assumptions) > n:
                self.survival.add(s.assumptions[n])
        return outcomes

    # (needs prefixes an operator can give, batch attributes that select a kind of batch): set
    # by run_entries; a raise under a test of anything else is never reported (merge_raises)
    unreported: tuple[tuple[str, ...], frozenset[str]] | None = None

    def merge_raises(self, raises: list[tuple[State, Any]]) -> list[tuple[State, Any]]:
        """Paths of one call that raise the same exception at the same place, each past a test
        of the run (a tensor's shape, the state of torch.distributed) that is not just the
        premise of getting there (an `if X: raise` passed), are one path for the caller. No
        phase reports such a raise (_classify, and serving.py's for the serving phase), so
        their tests become one assumption that needs all they needed, their states are joined,
        and the first path's events stand for all. A model's layer loop reaches one raise once
        per layer and per branch around it, and each path would otherwise run every `finally`
        and `with` exit on its way out by itself (0.5.10 DeepSeek-V3 with EAGLE: 8,306 paths
        through patch_model's exit in one CUDA-graph capture)."""
        if self.unreported is None:
            return raises
        groups: dict[tuple[Any, ...], list[tuple[State, Any]]] = {}
        out: list[tuple[State, Any]] = []
        for s, exc in raises:
            event = s.chain.newest("raise")
            if event is None or not isinstance(exc, ExcVal) or not isinstance(exc.message, (str, type(None))):
                out.append((s, exc))
                continue
            groups.setdefault((event.location, exc.type_name, id(exc.cls), exc.message), []).append((s, exc))
        for group in groups.values():
            if len(group) == 1:
                out.extend(group)
                continue
            prefix = _shared_prefix([s.assumptions for s, _ in group])
            bound: list[tuple[tuple[str, ...], tuple[State, Any]]] = []
            for s, exc in group:
                own = tuple(a for a in s.assumptions[prefix:] if a not in self.survival)
                if self._run_bound(own):
                    bound.append((own, (s, exc)))
                else:
                    out.append((s, exc))
            if len(bound) == 1:
                out.append(bound[0][1])
            elif bound:
                out.append(self._one_path(bound, prefix))
        return out

    def _run_bound(self, assumptions: tuple[str, ...]) -> bool:
        """Whether one of these assumptions, not a premise, tests something no operator gives
        and no kind of batch selects (so no phase reports a raise past it)."""
        assert self.unreported is not None
        config, kinds = self.unreported
        for a in assumptions:
            if a in self.survival:
                continue
            needs = self.assumed_needs.get(a, frozenset()) or {"runtime:" + a}
            if any(not (batch_kind(n, kinds) or n.startswith(config)) for n in needs):
                return True
        return False

    def _one_path(self, bound: list[tuple[tuple[str, ...], tuple[State, Any]]], prefix: int) -> tuple[State, Any]:
        needs: set[str] = set()
        for own, _path in bound:
            for a in own:
                needs |= self.assumed_needs.get(a, frozenset()) or {"runtime:" + a}
        first, exc = bound[0][1]
        event = first.chain.newest("raise")
        text = f"one of {len(bound)} paths of the run to {event.location if event else 'a raise'} " \
               f"(#{len(self.assumed_needs)})"
        self.assumed_needs[text] = frozenset(needs)
        # the first path's events stand for all: no phase reports such a raise or what its
        # paths wrote, and their histories are long (a merge of them costs each one's length)
        joined = join_states([path[0] for _own, path in bound], "paths of the run to one raise", first.chain)
        joined.assumptions = first.assumptions[:prefix] + (text,)
        return joined, exc

    @property
    def survival(self) -> set[str]:
        found = self.__dict__.get("_survival")
        if found is None:
            found = self.__dict__["_survival"] = set()
        return found


def _shared_prefix(tuples: list[tuple[str, ...]]) -> int:
    n = min(len(t) for t in tuples)
    first = tuples[0]
    for i in range(n):
        if any(t[i] != first[i] for t in tuples[1:]):
            return i
    return n


def _globals_of(fn_ir: dict[str, Any]) -> frozenset[str]:
    key = id(fn_ir)
    hit = GlobalWrites._declared.get(key)
    if hit is None:
        out: set[str] = set()
        _globals_in(fn_ir.get("body", []), out)
        hit = GlobalWrites._declared[key] = frozenset(out)
    return hit


def startup_world(world: World, root: Path, rules: dict[str, Any]) -> StartupWorld:
    out = StartupWorld(world.gpu, dict(world.env), world.model, world.model_path, dists=world.dists,
                       registries=_Registries(root, rules.get("registry", [])))
    out.dist = distributed(rules)
    return out


def _prelude(interp: StartupInterpreter, state: State, record: Obj, step: dict[str, Any],
             built: dict[str, Any] | None = None) -> None:
    if "class" in step:
        _prelude_methods(interp, state, record, step, built)
        return
    module_name, _, name = step["function"].rpartition(".")
    if not interp.store.module_file(module_name):
        return
    module = interp.import_module(module_name, state)
    fn = interp.deref(module.globals.get(name), state) if isinstance(module, ModuleVal) else None
    if not isinstance(fn, FuncVal):
        return
    names = {p[0] for p in fn.ir["params"]}
    kwargs = {k: spec_value(v, record, interp, state) for k, v in step.get("args", {}).items() if k in names}
    interp.call(fn, [], kwargs, state, module)


def _prelude_methods(interp: StartupInterpreter, state: State, record: Obj, step: dict[str, Any],
                     built: dict[str, Any] | None) -> None:
    """Methods of a tree class called on an instance whose constructor is not run, holding the
    given attributes (the steps of Scheduler.__init__ before it builds the TP worker); each where
    the release's class defines it, nothing where it defines none."""
    cls, _module = dotted_object(interp, state, step["class"])
    if not isinstance(cls, ClassVal) or not any(isinstance(cls.lookup(m)[1], FuncVal) for m in step.get("methods", [])):
        return
    bare_instance(step, record, interp, state, built)


def _then(interp: StartupInterpreter, state: State, instance: Any, name: str, module: ModuleVal) -> None:
    """A method the process calls on the entry once built, where the release's class defines it."""
    if not isinstance(instance, Obj):
        return
    found, fn = instance.cls.lookup(name)
    if not found or not isinstance(fn, FuncVal):
        return
    interp.call(interp.getattr(instance, name, state, module), [], {}, state, module)


def _budget_spent(entry: str, budget: int, notes: list[str]) -> list[str]:
    """Where the entry's step budget ran out, said once: each call on the stack when it ran out
    notes it (`QUALNAME: analysis budget exhausted`, the innermost first), and nothing after
    that point is followed."""
    spent = [n.rsplit(": analysis budget exhausted", 1)[0] for n in notes if n.endswith(": analysis budget exhausted")]
    if not spent:
        return []
    cut = f" ({len(spent)} calls cut short)" if len(spent) > 1 else ""
    return [f"the {entry}: analysis budget exhausted ({budget} steps) in {spent[0]}; nothing after it is "
            f"followed{cut}"]


def run_entries(interp: StartupInterpreter, state: State, record: Obj, rules: dict[str, Any]) -> StartupResult:
    """Construct each startup entry on the resolved record; `interp` and `state` are the resolution's."""
    result = StartupResult()
    config_prefixes = tuple(rules.get("needs", {}).get("config", []))
    before = state.chain.depth  # the number of events so far
    resolved = dict(state.attrs(record.oid))
    interp.read_record = record.oid  # flagscan/evaluate/startup/serving.py SettingReads
    interp.config_properties = True  # flagscan/evaluate/startup/config_props.py (not during the resolution)
    interp.join_needs = True  # flagscan/evaluate/startup/joins.py (idem)
    interp.unreported = (config_prefixes, frozenset(rules.get("serving_batch", {}).get("kinds", ())))
    if isinstance(interp.world, ProcessGroups):
        interp.world.dist_on = True  # torch.distributed's default group is made by the startup code
    budget = int(rules.get("startup_budget", {}).get("steps", interp.call_budget))
    built: dict[str, Any] = {}  # entry name -> what it built (an "entry:NAME" value of a later entry)
    served: list[tuple[Any, dict[str, Any]]] = []  # the entries built, whose objects then serve batches
    for entry in rules.get("entry", []):
        module_name, _, cls_name = entry["class"].rpartition(".")
        module = interp.import_module(module_name, state)
        cls = interp.deref(module.globals.get(cls_name), state) if isinstance(module, ModuleVal) else None
        if not isinstance(cls, ClassVal):
            if not entry.get("optional"):
                result.stopped.append(f"{entry['class']} not found in the tree: the {entry['name']} was not followed")
            continue
        params = init_params(cls)
        if params is None:
            result.stopped.append(f"{entry['class']}.__init__ not found: the {entry['name']} was not followed")
            continue
        method = entry.get("method")
        if method and not isinstance(cls.lookup(method)[1], FuncVal):
            continue  # the release's class has no such step: nothing is built there
        interp.steps = 0
        interp.call_budget = budget
        interp.notes = []
        completed = True
        instance = None
        try:
            for step in entry.get("prelude", []):
                _prelude(interp, state, record, step, built)
            if method:
                # a method of an object whose constructor is not run: it holds the given attributes
                attrs = {k: spec_value(v, record, interp, state, built) for k, v in entry.get("attributes", {}).items()}
                instance = interp.new_obj(cls, state, attrs)
                interp.call(interp.getattr(instance, method, state, module), [], {}, state, module)
            else:
                kwargs = {k: spec_value(v, record, interp, state, built) for k, v in entry.get("args", {}).items()
                          if k in params}
                instance = interp.call(cls, [], kwargs, state, module)
            built[entry["name"]] = instance
            for name in entry.get("then", []):
                _then(interp, state, instance, name, module)
        except Dead:
            completed = False
        except Budget:
            completed = False
            interp.notes.append(f"{entry['class']}: analysis budget exhausted")  # outside any call
        result.completed = result.completed or completed
        result.steps += interp.steps
        result.stopped.extend(_budget_spent(entry["name"], budget, interp.notes))
        raised, state.raised = list(state.raised), []
        survival = frozenset(getattr(interp, "survival", ()))
        for s, exc in raised:
            found = _classify(interp, s, exc, entry, config_prefixes, survival)
            if found is None:
                result.run_dependent += 1
            else:
                result.rejections.append(found)
        if completed:
            result.writes.update(_writes(state, record, resolved, before, survival))
            served.append((instance, entry))
    # batches arrive once every entry is built: what a later entry wrote (the draft worker's model
    # runner turning a setting off on the settings it shares with the target) is what serving sees
    survival = frozenset(getattr(interp, "survival", ()))
    for instance, entry in served:
        _serve(interp, state, instance, entry, rules, config_prefixes, survival, result)
    result.rejections = _dedupe(result.rejections)
    result.not_followed = [stop.message() for stop in getattr(interp, "stops", [])]
    return result


def _serve(interp: StartupInterpreter, state: State, instance: Any, entry: dict[str, Any], rules: dict[str, Any],
           config: tuple[str, ...], survival: frozenset[str], result: StartupResult) -> None:
    """The serving phase on what the entry built (flagscan/evaluate/startup/serving.py)."""
    from flagscan.evaluate.startup.serving import run_serving

    run = run_serving(interp, state, instance, entry, rules, config, survival)
    result.rejections.extend(run.rejections)
    result.run_dependent += run.run_dependent
    done = result.serving
    result.serving = {"methods": done.get("methods", 0) + run.methods, "steps": done.get("steps", 0) + run.steps,
                      "exhausted": sorted(set(done.get("exhausted", [])) | set(run.exhausted)),
                      "not_built": sorted(set(done.get("not_built", [])) | set(run.missing)),
                      "modes": list(dict.fromkeys([*done.get("modes", []), *run.modes]))}


def _own(assumptions: tuple[str, ...], survival: frozenset[str]) -> tuple[str, ...]:
    """The assumptions that condition a raise or write beyond reaching it at all."""
    return tuple(a for a in assumptions if a not in survival)


def _classify(interp: StartupInterpreter, s: State, exc: Any, entry: dict[str, Any], config: tuple[str, ...],
              survival: frozenset[str]) -> StartupRaise | None:
    event = s.chain.newest("raise")  # this raise
    needs: set[str] = set()
    own = _own(s.assumptions, survival)
    for a in own:
        needs |= set(interp.assumed_needs.get(a, frozenset({"runtime:" + a})) or {"runtime:" + a})
    if any(not n.startswith(config) for n in needs):
        return None
    from flagscan.evaluate.resolution.resolve import _text

    message = exc.message if isinstance(exc, ExcVal) else exc
    text = _text(message) or ""
    return StartupRaise(
        location=event.location if event else "?", handler=event.function if event else "?",
        exception=exc.type_name if isinstance(exc, ExcVal) else "Exception", message=text,
        condition=conjunction(event.conds) if event else "", certain=not own,
        needs=tuple(sorted(needs)), entry=entry["name"], phase=entry.get("phase", "startup"),
        reads=s.chain.firsts("read"))


def _writes(state: State, record: Obj, resolved: dict[str, Any], before: int,
            survival: frozenset[str]) -> dict[str, StartupWrite]:
    events = state.chain.since(before)
    final = state.attrs(record.oid)
    out: dict[str, StartupWrite] = {}
    for e in events:
        if e.kind != "write" or e.oid != record.oid or e.attr.startswith("_"):
            continue
        if e.attr in resolved and _same(resolved[e.attr], final.get(e.attr)):
            out.pop(e.attr, None)
            continue
        out[e.attr] = StartupWrite(e.attr, final.get(e.attr), e.location, e.function, conjunction(e.conds),
                                   not _own(e.assumptions, survival)
                                   and not isinstance(final.get(e.attr), Unknown))
    return dict(sorted(out.items()))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    try:
        return type(a) is type(b) and a == b
    except (TypeError, ValueError):  # an ambiguous comparison (array-like values): not the same
        return False


def _dedupe(rejections: list[StartupRaise]) -> list[StartupRaise]:
    best: dict[tuple[str, str], StartupRaise] = {}
    for r in rejections:
        key = (r.location, r.message)
        if key not in best or (r.certain and not best[key].certain):
            best[key] = r
    return sorted(best.values(), key=lambda r: (not r.certain, r.location, r.message))
