"""evaluate: the serving phase: the objects startup built, called abstractly with a batch not known.

Once the startup entry (rules/startup.toml [[entry]]) has been constructed on the
interpreter's heap, each [[serving]] rule names an object reached from it by
attributes (the model runner's attention backend, its model, its CUDA-graph runner)
and the methods SGLang calls on it when batches arrive. Each method is called on its
own fork of the startup state, with its batch parameters bound to an unknown batch
(needs "batch:<param>", an attribute of it "batch:<param>.<attr>") and every other
parameter unknown (a run value). A raise there is a serving-phase rejection when the
tests it assumed about the batch read attributes that select a kind of batch
(rules/startup.toml [serving_batch] kinds: the forward mode, multimodal inputs...):
those tests are its condition; a test of the batch's contents (its tensors, its
encoder lengths) is one of the run; the tests about the configuration make it
possible rather than certain, as in the startup phase; a raise under a test of
anything else (tensors, torch.distributed) depends on the run and is counted. Each
method has a step budget of its own (rules/startup.toml [serving_budget]).

A batch's forward mode is a member of the release's enum, not a value not known
(rules/startup.toml [serving_batch.modes]): each method is called once per member this
configuration produces (its `when` read from the resolved settings), with the batch's
mode bound to that member, so a dispatch by mode takes the one branch SGLang takes and a
raise past every mode a dispatch handles ("Invalid forward mode") is reached only by the
modes that do reach it. The mode is part of the condition; a raise reached by a mode the
configuration produces for certain, past no other test, is certain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Budget, Dead, truth
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import (
    BoundMethod,
    ClassVal,
    EnumMember,
    ExcVal,
    FuncVal,
    Holding,
    Maybe,
    ModuleVal,
    Obj,
    Unknown,
)
from flagscan.evaluate.startup.later import written_later
from flagscan.evaluate.startup.specs import call_value

BATCH = "batch:"
_MAX_CONDITIONS = 4


@dataclass(slots=True)
class ServingRun:
    """What calling the serving methods found (rejections are StartupRaise with phase "serving")."""

    rejections: list[Any] = field(default_factory=list)
    run_dependent: int = 0
    steps: int = 0
    methods: int = 0               # serving methods called
    exhausted: list[str] = field(default_factory=list)  # methods whose step budget ran out
    missing: list[str] = field(default_factory=list)    # [[serving]] objects not built on this configuration
    modes: list[str] = field(default_factory=list)      # the batches' forward modes ("NAME", "NAME?" when possible)


@dataclass(frozen=True, slots=True)
class BatchMode:
    """One forward mode a batch may have: the enum member (None: the mode is not known), whether
    this configuration produces such batches for certain (false for a mode SGLang may send), and
    what deciding that needs (a setting not known)."""

    member: Any
    certain: bool = True
    needs: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        if not isinstance(self.member, EnumMember):
            return ""
        return f"{'an' if self.member.name[:1] in 'AEIOU' else 'a'} {self.member.name} batch"


_ANY_MODE = BatchMode(None)


if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter as _Combined
    from flagscan.evaluate.startup.interpreter import StartupInterpreter
    from flagscan.evaluate.startup.results import StartupRaise
else:
    _Combined = object  # the Interpreter it is combined with (predict.py): its members, for mypy only


class SettingReads(_Combined):
    """Once the startup entry runs, each read of an attribute of the resolved record is a
    "read" event on its path, so a raise can say which settings its path read."""

    read_record = 0  # the oid of the resolved record (0: not tracking)

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        if self.read_record and isinstance(base, Obj) and base.oid == self.read_record:
            self.record(state, "read", module, self.line, oid=base.oid, attr=attr)
        return super().getattr(base, attr, state, module, node)


def path_reads(events: list[Any]) -> tuple[str, ...]:
    """The record attributes read on a path (events oldest first), each once, in first-read order."""
    return tuple(dict.fromkeys(e.attr for e in events if e.kind == "read"))


class BatchAsserts(_Combined):
    """While serving methods run, an `assert` on an unknown test records what the test
    needs, as `if` does: `assert forward_batch.x.numel() == 1` is a test of the batch,
    not of the run. (The resolution and startup phases keep their own handling.)"""

    serving_active = False
    serving_method: Any = None  # the IR of the serving method being called (its *args/**kwargs are run values)
    serving_mode: tuple[str, Any] | None = None  # (the batch's mode attribute, the member it holds) while serving

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        # an attribute of the batch itself needs "batch:<param>.<attr>": which part of the batch a test reads
        if self.serving_active and isinstance(base, Unknown) and base.needs and all(
                n.startswith(BATCH) and "." not in n for n in base.needs):
            if self.serving_mode is not None and attr == self.serving_mode[0]:
                return self.serving_mode[1]
            return Unknown(f"{base.why}.{attr}", {f"{n}.{attr}" for n in base.needs})
        return super().getattr(base, attr, state, module, node)

    def bind_params(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> dict[str, Any]:
        local = super().bind_params(fn, args, kwargs, state)
        if self.serving_active and fn.ir is self.serving_method:
            for name, _default, kind in fn.ir["params"]:
                if kind in ("*", "**"):
                    local[name] = Unknown(f"the {'keyword ' if kind == '**' else ''}arguments of a {fn.qualname} call")
        return local

    def assert_assumed(self, text: str, test: Any) -> None:
        super().assert_assumed(text, test)
        if self.serving_active and isinstance(test, Unknown) and test.needs:
            needs = self.assumed_needs.get(text, frozenset()) | test.needs
            self.assumed_needs[text] = self.assumed_needs[f"not ({text})"] = needs


def run_serving(interp: StartupInterpreter, state: State, instance: Any, entry: dict[str, Any], rules: dict[str, Any],
                config: tuple[str, ...], survival: frozenset[str]) -> ServingRun:
    """Call every [[serving]] method of `entry` on what `instance` (the constructed entry) holds."""
    out = ServingRun()
    budget = int(rules.get("serving_budget", {}).get("steps", 20_000))
    kinds = frozenset(rules.get("serving_batch", {}).get("kinds", ()))
    saved_stops = list(interp._stops)
    base = set(state.assumptions)
    modes_rule = rules.get("serving_batch", {}).get("modes", {})
    modes = batch_modes(interp, state, modes_rule)
    out.modes = [m.member.name + ("" if m.certain else "?") for m in modes if isinstance(m.member, EnumMember)]
    interp.serving_active = True
    for rule in rules.get("serving", []):
        if rule.get("entry", entry["name"]) != entry["name"]:
            continue
        objs: list[Obj] = []
        labels: dict[int, str] = {}   # an object that stands for others of its kind: which one, of how many
        for path in rule["objects"]:
            for o in _objects(interp, state, instance, path, rule.get("each"), labels):
                if all(o is not x for x in objs):
                    objs.append(o)
        if not objs:
            out.missing.append(rule["name"])
        context = [_resolved(interp, state, instance, spec) for spec in rule.get("context", [])]
        layer_rule = rule.get("layer")
        layers, model_modules = _layers(interp, state, instance, layer_rule) if layer_rule else ([None], frozenset())
        for obj in objs:
            for method in rule["methods"]:
                test = rule.get("mode_test", {}).get(method)
                found: list[StartupRaise] = []
                for mode in modes:
                    if test and not _mode_passes(interp, state, mode, test):
                        continue  # SGLang hands this method no batch of that mode
                    interp.serving_mode = (modes_rule["attribute"], mode.member) if mode.member is not None else None
                    try:
                        for layer in layers:
                            given = {layer_rule["param"]: layer} if layer is not None and layer_rule else {}
                            found += _call(interp, state, obj, method, rule, budget, config, survival | base, kinds,
                                           out, mode, given, model_modules, labels.get(obj.oid, ""), context)
                    finally:
                        interp.serving_mode = None
                out.rejections.extend(_by_raise(found))
    interp.serving_active = False
    interp._stops[:] = saved_stops  # code not followed while serving is counted, not reported as FS403
    return out


def batch_modes(interp: StartupInterpreter, state: State, spec: dict[str, Any]) -> list[BatchMode]:
    """The forward modes of the batches this configuration produces ([serving_batch.modes]):
    every member of the release's enum, each with what `when` says of it on the resolved
    record (a member the rule data does not name may be sent: a possible mode). One mode
    not known when the release has no such enum."""
    enum = spec.get("enum", "")
    module_name, _, cls_name = enum.rpartition(".")
    try:
        module = interp.import_module(module_name, state) if module_name else None
    except Dead:
        module = None
    cls = interp.deref(module.globals.get(cls_name), state) if isinstance(module, ModuleVal) else None
    members = [v for v in cls.attrs.values() if isinstance(v, EnumMember)] if isinstance(cls, ClassVal) else []
    if not members:
        return [_ANY_MODE]
    settings = state.attrs(interp.read_record) if interp.read_record else {}
    out: list[BatchMode] = []
    for member in members:
        when = spec.get("when", {}).get(member.name)
        if when is None:
            out.append(BatchMode(member, False))
            continue
        mode = _produced(member, when, settings)
        if mode is not None:
            out.append(mode)
    return out


def _produced(member: EnumMember, when: dict[str, Any], settings: dict[str, Any]) -> BatchMode | None:
    """The mode when this configuration may produce it (None: it never does)."""
    may = bool(when.get("may"))
    if when.get("never"):
        return None
    if when.get("always"):
        return BatchMode(member, not may)
    name = when.get("truthy") or (when.get("equals") or [""])[0]
    value = settings.get(name, Unknown(f"setting {name}"))
    if isinstance(value, Unknown):
        return BatchMode(member, False, frozenset({f"setting:{name}"}))
    produced = truth(value) if "truthy" in when else value == when["equals"][1]
    if not produced:
        return None
    return BatchMode(member, not may)


_LAYER_WALK = 50_000  # heap objects visited looking for a model's layers
_PLAIN = (int, float, str, bool, type(None))  # the attributes that tell kinds of layer apart


def _kind(state: State, obj: Obj, index: str) -> tuple[Any, ...]:
    """What tells kinds of layer apart: the class and the plain attributes other than the index."""
    attrs = state.attrs(obj.oid)
    return obj.cls.name, tuple(sorted(((k, v) for k, v in attrs.items() if k != index and isinstance(v, _PLAIN)),
                                      key=lambda kv: kv[0]))


def _layers(interp: StartupInterpreter, state: State, instance: Any, spec: dict[str, Any]
            ) -> tuple[list[Any], frozenset[str]]:
    """One layer object of each kind the built model holds (rules/startup.toml [[serving]] layer):
    the instances of the layer classes reached from `within` by attributes and containers, one
    per class and plain attributes other than the layer's index (a model's full-attention and
    linear-attention layers, a sliding-window layer beside a global one). [None] (a layer not
    known) when the model was not built or holds none. With them, the modules of the classes
    whose instances the model holds (whose code runs before the model calls out: later.py)."""
    classes = set(spec.get("classes", ()))
    index = spec.get("index", "layer_id")
    stack: list[Any] = [o for path in spec.get("within", ()) for o in _objects(interp, state, instance, path)]
    seen: set[int] = set()
    kinds: dict[tuple[Any, ...], Obj] = {}
    modules: set[str] = set()
    while stack and len(seen) < _LAYER_WALK:
        value = stack.pop()
        if isinstance(value, Maybe):
            value = value.value
        if isinstance(value, Obj):
            if value.oid in seen:
                continue
            seen.add(value.oid)
            modules.update(c.module.name for c in value.cls.mro())
            attrs = state.attrs(value.oid)
            if value.cls.name in classes:
                kinds.setdefault(_kind(state, value, index), value)
                continue
            stack.extend(attrs.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, Holding):
            stack.extend(value.held)
        elif isinstance(value, Unknown) and value.options:
            stack.extend(value.options)
    return list(kinds.values()) or [None], frozenset(modules)


def _mode_passes(interp: StartupInterpreter, state: State, mode: BatchMode, test: str) -> bool:
    """Whether the enum's own predicate `test` (`is_decode`) holds for the mode: what SGLang's
    dispatcher asks before it calls the method (true when the mode or its answer is not known)."""
    if not isinstance(mode.member, EnumMember):
        return True
    s = state.fork()
    try:
        method = interp.getattr(mode.member, test, s, mode.member.cls.module)
        answer = interp.call(method, [], {}, s, mode.member.cls.module)
    except (Dead, Budget):
        return True
    return truth(answer) is not False


def _by_raise(found: list[StartupRaise]) -> list[StartupRaise]:
    """One rejection per raise reached under several modes: the modes' conditions, either of
    which reaches it (certain when one does for certain)."""
    groups: dict[tuple[str, str, str], list[StartupRaise]] = {}
    for r in found:
        groups.setdefault((r.location, r.exception, r.message), []).append(r)
    out: list[StartupRaise] = []
    for group in groups.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        certain = [r for r in group if r.certain]
        best = certain[0] if certain else group[0]
        conditions = list(dict.fromkeys(r.condition for r in group))
        condition = conditions[0] if len(conditions) == 1 else _either(conditions)
        needs = () if certain else tuple(sorted(set().union(*(r.needs for r in group))))
        out.append(replace(best, condition=condition, needs=needs))
    return out


def _either(conditions: list[str]) -> str:
    """Several batches' conditions as one: "an EXTEND or a DECODE batch through X" where they
    differ by the mode only, else each in turn."""
    found = [re.fullmatch(r"an? ([A-Z_]+) batch( through .*)?", c) for c in conditions]
    modes = [m for m in found if m is not None]
    if len(modes) == len(found) and len({m.group(2) for m in modes}) == 1:
        names = [m.group(1) for m in modes]
        listed = ", ".join(names[:-1]) + f" or {names[-1]}"
        return f"{'an' if names[0][:1] in 'AEIOU' else 'a'} {listed} batch{modes[0].group(2) or ''}"
    return " or ".join(f"({c})" if " and " in c or ": " in c else c for c in conditions)


def _objects(interp: StartupInterpreter, state: State, instance: Any, path: str,
             each: dict[str, Any] | None = None, labels: dict[int, str] | None = None) -> list[Obj]:
    """The objects at the dotted attribute `path` from `instance` (each option of a joined value).
    With `each` ({index}): the path names containers (a list, an outside container that keeps
    what it was given: nn.ModuleList), and the objects are what they hold, one of each kind
    (_structure), each labelled in `labels` (by object id) with its index and how many it
    stands for."""
    values = _at(interp, state, instance, path)
    if each is None:
        return _distinct(interp, state, values)
    held: list[Any] = []
    for value in values:
        value = interp.deref(value, state)
        items = value.held if isinstance(value, Holding) else value if isinstance(value, (list, tuple)) else ()
        held.extend(i.value if isinstance(i, Maybe) else i for i in items)
    index = each.get("index", "")
    kinds: dict[Any, list[Obj]] = {}
    for obj in _distinct(interp, state, held):
        kinds.setdefault(_structure(interp, state, obj, index, 4), []).append(obj)
    for group in kinds.values():
        at = state.attrs(group[0].oid).get(index)
        which = f" {index} {at}" if isinstance(at, int) and not isinstance(at, bool) else ""
        more = f", one of {len(group)} alike" if len(group) > 1 else ""
        if labels is not None:
            labels[group[0].oid] = f"{group[0].cls.name}{which}{more}".strip()
    return [group[0] for group in kinds.values()]


def _structure(interp: StartupInterpreter, state: State, value: Any, index: str, depth: int) -> Any:
    """What tells kinds of a model's block apart, its parts included (a hash-routed MoE beside a
    grouped one, an attention layer of another compression ratio): the class, the attributes
    that are numbers, booleans or None (not `index`, nor a name or a prefix, which every block
    has its own), and the same of the objects it holds, `depth` levels down."""
    value = interp.deref(value, state)
    if isinstance(value, Maybe):
        value = value.value
    if isinstance(value, (list, tuple)):
        return tuple(_structure(interp, state, v, index, depth) for v in value[:8]) if depth else len(value)
    if not isinstance(value, Obj):
        return value if isinstance(value, (int, float, bool, type(None))) else type(value).__name__
    if depth == 0:
        return value.cls.name
    attrs = state.attrs(value.oid)
    return value.cls.name, tuple((k, _structure(interp, state, v, index, depth - 1))
                                 for k, v in sorted(attrs.items()) if k != index and not isinstance(v, str))


def _resolved(interp: StartupInterpreter, state: State, instance: Any, spec: Any) -> Any:
    """A [[serving]] context spec with each "object:PATH" (an object the entry built, the first
    of the `|`-separated attribute paths that holds one) replaced by that object; a path that
    holds none is a value not known."""
    if isinstance(spec, dict):
        return {k: _resolved(interp, state, instance, v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_resolved(interp, state, instance, v) for v in spec]
    if isinstance(spec, str) and spec.startswith("object:"):
        for path in spec[len("object:"):].split("|"):
            found = _objects(interp, state, instance, path)
            if len(found) == 1:
                return found[0]
        return f"unknown:{spec[len('object:'):]} (not built)"
    return spec


def _distinct(interp: StartupInterpreter, state: State, values: list[Any]) -> list[Obj]:
    objs: list[Obj] = []
    for value in values:
        value = interp.deref(value, state)
        if isinstance(value, Obj) and all(value is not o for o in objs):
            objs.append(value)
    return objs


def _at(interp: StartupInterpreter, state: State, instance: Any, path: str) -> list[Any]:
    """The values at the dotted attribute `path` from `instance` (each option of a joined value)."""
    current = [instance]
    for attr in path.split("."):
        following: list[Any] = []
        for value in current:
            value = interp.deref(value, state)
            if not isinstance(value, Obj):
                continue
            got = state.attrs(value.oid).get(attr)
            got = interp.deref(got, state)
            options = got.options if isinstance(got, Unknown) and got.options else (got,)
            following.extend(o for o in options if o is not None)
        current = following
    return current


def _call(interp: StartupInterpreter, state: State, obj: Obj, method: str, rule: dict[str, Any], budget: int,
          config: tuple[str, ...], premise: frozenset[str], kinds: frozenset[str], out: ServingRun,
          mode: BatchMode = _ANY_MODE, given: dict[str, Any] | None = None,
          model_modules: frozenset[str] = frozenset(), label: str = "",
          context: list[dict[str, Any]] | None = None) -> list[StartupRaise]:
    """Call `method` with a batch of `mode` (and the `given` parameters: a layer of the model); the
    serving rejections it raises (counted in `out`)."""
    found, fn = obj.cls.lookup(method)
    if not found or not isinstance(fn, FuncVal):
        return []
    batch_params = set(rule.get("batch", []))
    # every parameter is given by SGLang's caller, a default one too (the model's attention
    # layer passes save_kv_cache, k_rope... to the backend's forward_decode): the batch ones
    # are the batch, the others run values
    kwargs = {name: Unknown(f"the {name} of a {method} call", {BATCH + name}) if name in batch_params
              else Unknown(f"the {name} of a {method} call")
              for name, _default, kind in fn.ir["params"][1:] if kind in ("pos", "kw")}
    kwargs.update({k: v for k, v in (given or {}).items() if k in kwargs})
    s = state.fork()
    s.raised = []
    if context:
        for spec in context:   # what SGLang's caller sets up before the call (the forward context)
            try:
                call_value(spec, None, interp, s, None)
            except (Dead, Budget):
                return []
    for value in (given or {}).values():
        if isinstance(value, Obj):
            _as_served(interp, s, value, model_modules)
    start = s.chain.depth  # the number of events so far
    saved_budget, saved_steps, saved_notes = interp.call_budget, interp.steps, list(interp.notes)
    interp.steps, interp.call_budget = 0, budget
    interp.serving_method = fn.ir
    where = f"{obj.cls.name}.{method}"
    try:
        interp.call(BoundMethod(fn, obj), [], kwargs, s, fn.module)
    except Dead:
        pass
    except Budget:
        out.exhausted.append(where)
    finally:
        if interp.steps > budget:
            out.exhausted.append(where)
        out.steps += interp.steps
        interp.call_budget, interp.steps, interp.notes = saved_budget, saved_steps, saved_notes
    out.methods += 1
    rejections: list[StartupRaise] = []
    for raised_state, exc in s.raised:
        layer = next((v for v in (given or {}).values() if isinstance(v, Obj)), None)
        found_raise = _classify(interp, raised_state, exc, rule, where, config, premise, kinds, start, mode,
                                f"a {layer.cls.name} layer" if layer is not None else
                                f"{rule['name']} {label}" if label else "")
        if found_raise is None:
            out.run_dependent += 1
        else:
            rejections.append(found_raise)
    out.exhausted = sorted(set(out.exhausted))
    return rejections


def _as_served(interp: StartupInterpreter, state: State, obj: Obj, modules: frozenset[str]) -> None:
    """The object as SGLang hands it to a serving method: each attribute the loaded code may
    write after building it (the model's forward sets a layer's projection first) is a value
    of the run (flagscan/evaluate/startup/later.py)."""
    attrs = state.attrs(obj.oid)
    later = [name for name in written_later(interp, obj.cls, modules) if name in attrs]
    if later:
        heap = state.writable(obj.oid)
        for name in later:
            heap[name] = Unknown(f"{obj.cls.name}.{name}, which the model's code may set before this call")


def batch_kind(need: str, kinds: frozenset[str]) -> bool:
    """Whether a batch need ("batch:<param>.<attr>") reads an attribute that selects a kind of batch."""
    _param, dot, attr = need[len(BATCH):].partition(".")
    return bool(dot) and attr in kinds


def _classify(interp: StartupInterpreter, s: State, exc: Any, rule: dict[str, Any], where: str, config: tuple[str, ...],
              premise: frozenset[str], kinds: frozenset[str], start: int, mode: BatchMode = _ANY_MODE,
              layer: str = "") -> StartupRaise | None:
    from flagscan.evaluate.resolution.resolve import _text
    from flagscan.evaluate.startup.results import StartupRaise

    events = s.chain.since(start)
    event = next((e for e in reversed(events) if e.kind == "raise"), None)
    if event is None:
        return None  # a raise recorded before serving began (not this call's)
    batch: list[str] = []
    needs: set[str] = set(mode.needs)
    passed = getattr(interp, "survival", ())  # an `assert X` or `if X: raise` passed while serving is a premise too
    for a in s.assumptions:
        if a in premise or a in passed:
            continue
        got = set(interp.assumed_needs.get(a, frozenset()) or {"runtime:" + a})
        if any(not (batch_kind(n, kinds) if n.startswith(BATCH) else n.startswith(config)) for n in got):
            return None  # a test of the run, or of the batch's contents rather than its kind
        if any(n.startswith(BATCH) for n in got):
            batch.append(" ".join(a.split()))
        needs |= {n for n in got if not n.startswith(BATCH)}
    tests = " and ".join(dict.fromkeys(batch[-_MAX_CONDITIONS:]))
    kind = " through ".join(part for part in (mode.text, layer) if part)
    condition = ": ".join(part for part in (kind, tests) if part) or f"every {where} call"
    message = exc.message if isinstance(exc, ExcVal) else exc
    return StartupRaise(
        location=event.location, handler=event.function,
        exception=exc.type_name if isinstance(exc, ExcVal) else "Exception", message=_text(message) or "",
        condition=condition, certain=not batch and not needs and mode.certain, needs=tuple(sorted(needs)),
        entry=f"{rule['name']} ({where})", phase="serving", reads=path_reads(events))
