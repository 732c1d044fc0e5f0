"""evaluate: run SGLang's own argument resolution abstractly and report what it changes."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import Event, State, join_states, same
from flagscan.evaluate.interp.values import (
    ClassVal,
    EnumMember,
    ExcVal,
    FuncVal,
    Maybe,
    ModuleVal,
    Obj,
    Unknown,
    has_unknown,
)
from flagscan.evaluate.resolution.results import Cause, Rejection, Resolution, Setting
from flagscan.evaluate.world import World
from flagscan.facts.flags import Inventory, UnknownValue
from flagscan.facts.render import conjunction
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.extract.irstore import ModuleStore


class _Resolver(Interpreter):
    """The interpreter, with each field write attributed to the code that made it.

    A record class with its own `__setattr__` (SGLang 0.5.18's read-only guard ends in
    `object.__setattr__(self, name, value)`) performs every write inside that special
    method; the handler whose `self.x = ...` called it, with that handler's conditions
    and line, is the cause, not the hook. So while a special method of the written
    object's own class runs on behalf of an assignment, writes it records carry the
    assigning frame."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writers: list[tuple[str, str, tuple[str, ...], str]] = []  # hook, function, conds, location

    def setattr(self, obj: Any, attr: str, value: Any, state: State, module: ModuleVal, line: int,
                raw: bool = False) -> None:
        hook = obj.cls.lookup("__setattr__")[1] if isinstance(obj, Obj) and not raw else None
        if not isinstance(hook, FuncVal):
            return super().setattr(obj, attr, value, state, module, line, raw)
        self._writers.append((hook.ir["name"], state.function, state.conds, self.loc(module, line)))
        try:
            return super().setattr(obj, attr, value, state, module, line, raw)
        finally:
            self._writers.pop()

    def record(self, state: State, kind: str, module: ModuleVal, line: int, **data: Any) -> None:
        if kind == "write" and self._writers and state.function == self._writers[-1][0]:
            _, function, conds, location = self._writers[-1]
            state.add_event(Event(kind, location, function, conds, state.assumptions, **data))
            return
        super().record(state, kind, module, line, **data)


@dataclass
class EntryRun:
    """The resolution entry of rules/resolution.toml run once: the record, the heap it lives
    on, and whether a path completed (the startup phase goes on from here)."""

    interp: Interpreter
    state: State
    module: ModuleVal | None
    record_cls: Any
    record: Any
    completed: bool
    problem: str | None = None   # why the entry could not be followed at all


def run_entry(store: ModuleStore, inventory: Inventory, user_values: dict[str, Any], world: World,
              rules: dict[str, Any], interp_cls: type[Interpreter] | None = None) -> EntryRun:
    """Build argparse's Namespace, construct the record, call its `then_call` methods."""
    interp = (interp_cls or _Resolver)(store, world, declarations=rules.get("declarations"))
    from flagscan.evaluate.interp.envwrites import ENV_OID
    state = State({ENV_OID: {}}, {})   # every path starts with no environment write
    module = interp.import_module(rules["entry"]["module"], state)
    if not isinstance(module, ModuleVal):
        return EntryRun(interp, state, None, None, None, False, f"{rules['entry']['module']} not found in the tree")
    record_cls = interp.deref(module.globals.get(rules["entry"]["class"]), state)
    namespace = _namespace(interp, inventory, user_values, state, module)
    constructor = interp.getattr(record_cls, rules["entry"]["constructor"], state, module) if isinstance(record_cls, ClassVal) else None
    if constructor is None or isinstance(constructor, Unknown):
        return EntryRun(interp, state, module, record_cls, None, False,
                        f"cannot follow {rules['entry']['class']}.{rules['entry']['constructor']}")
    interp.snapshots = {}
    completed = True
    try:
        record = interp.call(constructor, [namespace], {}, state, module)
    except Dead:
        record, completed = None, False
    for method in rules["entry"].get("then_call", []):
        if completed and isinstance(record, Obj):
            found, fn = record.cls.lookup(method)
            if found:
                interp.snapshots.setdefault(record.oid, dict(state.attrs(record.oid)))
                try:
                    interp.call(interp.bind(fn, record, state, module), [], {}, state, module)
                except Dead:
                    completed = False
    return EntryRun(interp, state, module, record_cls, record, completed)


def resolve(store: ModuleStore, inventory: Inventory, user_values: dict[str, Any], world: World,
            rules: dict[str, Any] | None = None) -> Resolution:
    """`user_values`: dest -> value for the flags the launch command gives."""
    rules = rules or load("resolution")
    return resolution_of(run_entry(store, inventory, user_values, world, rules), store, inventory, user_values, rules)


def resolution_of(run: EntryRun, store: ModuleStore, inventory: Inventory, user_values: dict[str, Any],
                  rules: dict[str, Any]) -> Resolution:
    """The settings, rejections and causes of an entry run (it goes on with the run's state:
    the startup phase, which runs the entry once for both, takes a forked copy)."""
    if run.problem is not None:
        return Resolution({}, [], [run.problem], False)
    assert run.module is not None, "an entry run with no problem has its module"
    interp, state, module, record_cls, record, completed = (run.interp, run.state, run.module, run.record_cls,
                                                            run.record, run.completed)
    notes: list[str] = []
    raised = list(state.raised)
    state.raised = []
    notes.extend(interp.notes)
    rejections = [_rejection(s, exc, interp.assumed_needs) for s, exc in raised]
    if not isinstance(record, Obj):
        record = _find_record(interp, state, raised, record_cls)
    final_state = state if completed else _last_state(raised, state)
    final = _final_values(interp, rules, record, final_state, module) if isinstance(record, Obj) else None
    fallback = _fallback_cause(store, rules, notes) if final is not None else None
    every = _settings(interp, inventory, user_values, record, final_state, final)
    # a field whose name starts with "_" is the record's private bookkeeping, not a setting
    settings = {k: v for k, v in every.items() if not k.startswith("_")}
    private = {k: v for k, v in every.items() if k.startswith("_")}
    if final is not None and isinstance(record, Obj):
        _attribute_stash(interp, rules, record, final_state, settings)
    if fallback is not None and isinstance(record, Obj):
        _attribute_fallbacks(interp, rules, record, final_state, module, settings, inventory)
    stops = list(getattr(interp, "stops", []))
    from flagscan.evaluate.interp.envwrites import collect
    env = collect(final_state)
    return Resolution(settings, _dedupe(rejections), notes, completed, private, stops, env)


def _fallback_cause(store: ModuleStore, rules: dict[str, Any], notes: list[str]) -> str | None:
    """rules' cause for values the result function falls back to, if its body was reviewed."""
    import hashlib

    spec = rules.get("result_fallback")
    name = rules["entry"].get("result_function")
    if not spec or not name:
        return None
    mod_name, _, fn_name = name.rpartition(".")
    path = store.module_file(mod_name)
    try:
        tree = ast.parse(path.read_bytes()) if path is not None else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    fn = next((n for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef) and n.name == fn_name), None)
    if fn is None:
        return None
    digest = hashlib.sha256(ast.unparse(fn).encode()).hexdigest()
    if digest not in {r["sha256"] for r in spec.get("reviewed", [])}:
        notes.append(f"{name} differs from every reviewed version (sha256 {digest[:12]}): values it falls back "
                     "to are shown without a cause")
        return None
    cause: str = spec["cause"]   # rules/resolution.toml [result_fallback] cause: a text
    return cause


def _attribute_stash(interp: Interpreter, rules: dict[str, Any], record: Obj, state: State, settings: dict[str, Setting]) -> None:
    """An adjusted setting with no traced cause, decided by the last (source, {field: value})
    pair of the record's declaration stash that names it: that source is the cause."""
    name = rules.get("declarations", {}).get("stash")
    stash = interp.deref(state.attrs(record.oid).get(name), state) if name else None
    if not isinstance(stash, list):
        return
    for dest, setting in settings.items():
        if setting.origin != "adjusted" or setting.because or not setting.certain or setting.user_given:
            continue
        for entry in reversed(stash):
            present = not isinstance(entry, Maybe)
            pair = _pair(interp, entry.value if not present else entry, state)
            if pair is None:
                break  # unreadable: it may be the deciding one
            source, declared = pair
            if dest not in declared:
                continue
            value = materialize(declared[dest], state)
            if present and not has_unknown(value) and same(value, setting.value):
                setting.because = [Cause(_definition(interp, source), source, "declared", None, True)]
            break


def _pair(interp: Interpreter, entry: Any, state: State) -> tuple[str, dict[str, Any]] | None:
    entry = interp.deref(entry, state)
    if isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], str):
        declared = interp.deref(entry[1], state)
        if isinstance(declared, dict):
            return entry[0], declared
    return None


def _definition(interp: Interpreter, qualname: str) -> str:
    """Where the function a declaration source names (`fn.__qualname__`) is defined."""
    owner, _, fn_name = qualname.rpartition(".")
    for module in interp.modules.values():
        if not isinstance(module, ModuleVal):
            continue
        value = module.globals.get(owner or fn_name)
        if owner and isinstance(value, ClassVal):
            value = value.attrs.get(fn_name)
        if isinstance(value, FuncVal) and value.ir.get("name") == fn_name:
            return f"{module.path}:{value.ir.get('line', 0)}"
    return ""


def _attribute_fallbacks(interp: Interpreter, rules: dict[str, Any], record: Obj, state: State, module: ModuleVal,
                         settings: dict[str, Setting], inventory: Inventory) -> None:
    """An adjusted setting with no traced cause that equals the field's declared fallback
    (as the release's own fallback function returns it) gets that as its cause."""
    spec = rules["result_fallback"]
    mod_name, _, fn_name = spec["function"].rpartition(".")
    target = interp.import_module(mod_name, state)
    fn = interp.deref(target.globals.get(fn_name), state) if isinstance(target, ModuleVal) else None
    if fn is None or isinstance(fn, Unknown):
        return
    flags = {f.dest: f for f in inventory.flags}
    result_fn = rules["entry"]["result_function"].rpartition(".")[2]
    for name, setting in settings.items():
        if setting.origin != "adjusted" or setting.because or not setting.certain or setting.user_given:
            continue
        try:
            declared = interp.call(fn, [record.cls, name, None], {}, state, module)
        except Dead:
            continue
        if not has_unknown(declared) and declared is not None and same(declared, setting.value):
            where = str(flags[name].location) if name in flags else spec["function"]
            setting.because = [Cause(where, result_fn, spec["cause"], None, True, fallback=True)]
    state.raised = []


def _final_values(interp: Interpreter, rules: dict[str, Any], record: Obj, state: State, module: ModuleVal) -> dict[str, Any] | None:
    """Through the release's own result function when it decides by declarations."""
    name = rules["entry"].get("result_function")
    if not name:
        return None
    mod_name, _, fn_name = name.rpartition(".")
    target = interp.import_module(mod_name, state)
    fn = interp.deref(target.globals.get(fn_name), state) if isinstance(target, ModuleVal) else None
    if fn is None or isinstance(fn, Unknown):
        return None
    out: dict[str, Any] = {}
    # The release's own serialisation of the resolved record (0.5.23 `resolved_dict`,
    # what /server_info reports) may restate a field after reading each one through
    # result_function (`resolved["enable_dp_attention"] = ... attn_dp_size > 1`):
    # what it returns is the value; a field it leaves unknown is read field by field.
    method = rules["entry"].get("result_method")
    found, serialise = record.cls.lookup(method) if method else (False, None)
    if found and isinstance(serialise, FuncVal):
        try:
            serialised = interp.call(interp.bind(serialise, record, state, module), [], {}, state, module)
        except Dead:
            serialised = None
        if isinstance(serialised, dict):
            out = {k: v for k, v in serialised.items() if isinstance(k, str) and not has_unknown(v)}
    for field_name in list(interp.snapshots.get(record.oid, {})):
        if field_name in out:
            continue
        try:
            out[field_name] = interp.call(fn, [record, field_name], {}, state, module)
        except Dead:
            out[field_name] = Unknown(f"{fn_name}({field_name})")
    state.raised = []
    return out


def _namespace(interp: Interpreter, inventory: Inventory, user_values: dict[str, Any], state: State,
               module: ModuleVal) -> Obj:
    """argparse's Namespace: every dest with its default, then what the user gave."""
    cls = ClassVal("Namespace", module, None, [])
    attrs: dict[str, Any] = {}
    for dest, default in flag_defaults(inventory).items():
        attrs[dest] = Unknown(f"default of {dest}") if isinstance(default, UnknownValue) else default
    attrs.update(_converted(interp, inventory, user_values, state, module))
    return interp.new_obj(cls, state, attrs)


def flag_defaults(inventory: Inventory) -> dict[str, Any]:
    """dest -> the default argparse puts on the Namespace: the first option of that dest
    whose default is not `argparse.SUPPRESS` (SUPPRESS means "set no attribute", as a
    deprecated alias sharing its replacement's dest declares it). A dest every option of
    which suppresses is absent, and the record's field default applies."""
    suppress = load("cli").get("primitives", {}).get("values", {}).get("argparse.SUPPRESS")
    out: dict[str, Any] = {}
    for flag in inventory.flags:
        if flag.dest not in out and not (isinstance(flag.default, str) and flag.default == suppress):
            out[flag.dest] = flag.default
    return out


_PLAIN_TYPES = {None, "str", "int", "float", "bool"}


def _converted(interp: Interpreter, inventory: Inventory, user_values: dict[str, Any], state: State,
               module: ModuleVal) -> dict[str, Any]:
    """User values through the release's own custom argparse `type=` functions
    (`human_readable_int`: "8k" -> 8000), which the command parser leaves as strings."""
    types = {f.dest: f.type for f in inventory.flags if f.type not in _PLAIN_TYPES}
    out = dict(user_values)
    for dest, value in user_values.items():
        type_name = types.get(dest)
        fn = module.globals.get(type_name) if isinstance(type_name, str) else None
        fn = interp.deref(fn, state) if fn is not None else None
        if not isinstance(fn, FuncVal):
            continue
        raws = value if isinstance(value, list) else [value]
        if not all(isinstance(r, str) for r in raws):
            continue
        converted = []
        for raw in raws:
            try:
                result = interp.call(fn, [raw], {}, state, module)
            except Dead:
                result = None
            if result is None:
                break  # it raised: SGLang's parser refuses the value; the raw string stays
            if has_unknown(result):
                # followed only part of the way: unknown rather than the unconverted string
                out[dest] = Unknown(f"{types[dest]}({raw!r})", getattr(result, "needs", ()))
                break
            converted.append(result)
        else:
            out[dest] = converted if isinstance(value, list) else converted[0]
    state.raised = []
    return out


def _find_record(interp: Interpreter, state: State, raised: list[tuple[State, Any]],
                 record_cls: Any) -> Obj | None:
    for oid in sorted(interp.snapshots):
        return Obj(record_cls, oid)
    return None


def _last_state(raised: list[tuple[State, Any]], state: State) -> State:
    states = [s for s, _ in raised]
    return join_states(states, "rejected") if states else state


def _settings(interp: Interpreter, inventory: Inventory, user_values: dict[str, Any], record: Obj | None,
              state: State, final: dict[str, Any] | None = None) -> dict[str, Setting]:
    if record is None:
        return {}
    if final is None:
        final = state.attrs(record.oid)
    initial = interp.snapshots.get(record.oid, final)
    writes: dict[str, list[Event]] = {}
    events = list(state.events)
    logs = [e for e in events if e.kind == "log"]
    for e in events:
        if e.kind == "write" and e.oid == record.oid:
            writes.setdefault(e.attr, []).append(e)
    defaults = flag_defaults(inventory)
    translated = _translations(inventory, user_values)
    out: dict[str, Setting] = {}
    for name in initial:
        value = materialize(final.get(name, initial[name]), state)
        start = materialize(initial[name], state)
        default = defaults.get(name, start)
        given, user_value = name in user_values, user_values.get(name)
        first: list[Cause] = []
        translation = _translation(writes.get(name, []), translated.get(name, ())) if not given else None
        if translation is not None:
            # a deprecated flag the user gave, which SGLang turned into this one: the value
            # it wrote is the user's, and what later steps do to it is judged against that
            given, user_value, start = True, materialize(translation.value, state), materialize(translation.value, state)
            first = [_cause(translation, logs)]
        certain = not has_unknown(value)
        changed = not same(value, start) if certain and not has_unknown(start) else bool(writes.get(name))
        causes = [_cause(e, logs) for e in writes.get(name, []) if _counts(e, value) and e is not translation]
        if changed and (certain or causes):
            origin = "adjusted"
        else:
            origin = "user" if given else "default"
        because = first + (causes if origin == "adjusted" else [])
        setting = Setting(name, value, default, origin, certain, user_value, given, because)
        if translation is not None:
            setting.via = next(d for d in translated[name] if _translation([translation], (d,)) is not None)
        if isinstance(value, Unknown):
            setting.needs = sorted(value.needs)
            if value.options is not None:
                setting.options = list(value.options)
        out[name] = setting
    return out


def _translations(inventory: Inventory, user_values: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """replacement dest -> the deprecated dests the user gave that name it as their
    replacement (`--enable-flashinfer-allreduce-fusion`, "use
    --flashinfer-allreduce-fusion-backend=auto instead")."""
    by_option = {o: f.dest for f in inventory.flags for o in f.options}
    out: dict[str, set[str]] = {}
    for flag in inventory.flags:
        if not (flag.deprecated and flag.replacement and flag.dest in user_values):
            continue
        for option in re.findall(r"--[\w-]+", flag.replacement):
            dest = by_option.get(option)
            if dest is not None and dest != flag.dest:
                out.setdefault(dest, set()).add(flag.dest)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _translation(writes: list[Event], deprecated: tuple[str, ...]) -> Event | None:
    """The last write to a replacement made under a test of the deprecated flag (SGLang's
    translation `if self.old: self.new = ...`): data flow, not a per-flag table."""
    found = None
    for write in writes:
        if any(re.search(rf"\b{re.escape(d)}\b", cond) for cond in write.conds for d in deprecated):
            found = write
    return found


def materialize(value: Any, state: State, depth: int = 0) -> Any:
    """Records (dataclass instances) as dicts of their fields, as SGLang serialises them."""
    if depth > 6:
        return value
    if isinstance(value, Obj):
        fields = value.cls.dataclass_fields() if value.cls.is_dataclass or any(
            c.is_dataclass for c in value.cls.mro()) else None
        attrs = state.attrs(value.oid)
        if not fields:
            return Unknown(f"a {value.cls.name} object")
        return {name: materialize(attrs.get(name, Unknown(name)), state, depth + 1) for name, _ in fields}
    if isinstance(value, dict):
        return {k: materialize(v, state, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [materialize(v, state, depth + 1) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, EnumMember):
        return value.value if not isinstance(value.value, Unknown) else value.name
    return value


def _counts(write: Event, final: Any) -> bool:
    return isinstance(final, Unknown) or same(write.value, final) or isinstance(write.value, Obj)


def _cause(write: Event, logs: list[Event]) -> Cause:
    message = None
    for log in logs:
        if log.function == write.function and log.conds == write.conds:
            message = _text(log.message)
    return Cause(write.location, write.function, conjunction(write.conds), message, not write.assumptions)


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _text(message: Any) -> str | None:
    """A message as SGLang would print it. An f-string with parts flagscan could not
    evaluate comes back with those parts as `{expr}` (the known parts filled in); each
    shows as `<name>` (the attribute or name it reads), never as a raw template."""
    if isinstance(message, Unknown):
        return _PLACEHOLDER.sub(_placeholder, message.why)
    if message is None:
        return None
    return str(message)


def _placeholder(match: re.Match[str]) -> str:
    try:
        node = ast.parse(match.group(1).strip(), mode="eval").body
    except SyntaxError:
        return match.group(0)
    if not any(isinstance(n, ast.Name) for n in ast.walk(node)):
        return match.group(0)  # a rendered literal (`{'a', 'b'}`), not a template part
    if isinstance(node, ast.Attribute):
        return f"<{node.attr}>"
    if isinstance(node, ast.Name):
        return f"<{node.id}>"
    return f"<{ast.unparse(node)}>"


def _rejection_message(exc: Any, message: Any) -> str:
    """A bare `assert test` raises with no message: say that the test fails, rather than
    show the test's source text as if it were SGLang's message."""
    text = _text(message) or ""
    if isinstance(exc, ExcVal) and exc.type_name == "AssertionError" and isinstance(message, str):
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return text
        if not isinstance(node, ast.Constant):
            return f"assertion `{text}` fails"
    return text


def _rejection(state: State, exc: Any, assumed_needs: dict[str, frozenset[str]] | None = None) -> Rejection:
    event = state.chain.newest("raise")
    depends: set[str] = set()
    for a in state.assumptions:
        depends |= (assumed_needs or {}).get(a) or {"runtime:" + a}
    message = exc.message if isinstance(exc, ExcVal) else exc
    needs: list[str] = sorted(message.needs) if isinstance(message, Unknown) else []
    return Rejection(
        location=event.location if event else "?",
        handler=event.function if event else "?",
        condition=conjunction(event.conds) if event else "",
        message=_rejection_message(exc, message),
        certain=not state.assumptions,
        exception=exc.type_name if isinstance(exc, ExcVal) else "Exception",
        needs=needs + [f"assumed: {a}" for a in state.assumptions][:5],
        depends=sorted(depends),
    )


def _dedupe(rejections: list[Rejection]) -> list[Rejection]:
    seen: set[tuple[str, str]] = set()
    out = []
    for r in rejections:
        key = (r.location, r.message)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out
