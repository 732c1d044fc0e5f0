"""evaluate: the interpreter that gate guards are evaluated with (ast-lowered modules, runtime globals).

Modules come from the IR cache (flagscan/extract/irstore.py) that the read
extractor fills as it parses. After a module executes, every module global
that some function rebinds with `global` is replaced by what runtime code can
see: the setting it mirrors (`_ENABLE_DP_ATTENTION_FLAG = server_args.enable_dp_attention`
in `initialize_dp_attention`) or an unknown; its import-time value is not what
a request sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ClassVal, FuncVal, ModuleVal, Unknown
from flagscan.extract.reads_walk import nested_blocks
from flagscan.facts import ir
from flagscan.facts.ir import is_kind, name_of, view
from flagscan.strict import give_up

if TYPE_CHECKING:
    from flagscan.evaluate.world import World
    from flagscan.extract.irstore import ModuleStore
    from flagscan.facts.reads import FileFacts


class GateInterpreter(Interpreter):
    """An Interpreter whose modules see runtime values for rebound globals."""

    def __init__(self, store: ModuleStore, world: World, mirrors: dict[str, dict[str, Any]], **kw: Any) -> None:
        super().__init__(store, world, call_budget=kw.pop("call_budget", 60_000), **kw)
        self.mirrors = mirrors   # module -> {global name: value}
        # (module, global) -> (import-time value, {function rebinding it: (its first assignment
        # line, the constants it assigns, or None when it assigns anything else)})
        self.first_call: dict[tuple[str, str], tuple[Any, dict[str, tuple[int, frozenset[Any] | None]]]] = {}
        self._state = State({}, {})

    def import_module(self, name: str, state: State) -> Any:
        if name in self.modules:
            return super().import_module(name, state)
        # A module's objects (`_PLATFORM = PlatformContext()`) live in the heap of the state
        # its body ran in. Run it in the module-level state every guard starts from, even when
        # a guard's call imports it, so the next guard sees them too; this path sees them now.
        module = super().import_module(name, self._state)
        if state is not self._state:
            shared = self._state.heap
            state.heap_w().update({oid: shared[oid] for oid in sorted(shared.keys() - state.heap.keys())})
        if isinstance(module, ModuleVal):
            self._runtime_globals(module)
        return module

    def guard_state(self, local_names: list[str]) -> State:
        """A fresh path for one guard: the module-level objects, shared copy-on-write."""
        return State(dict(self._state.heap), {n: Unknown(n, {f"runtime:{n}"}) for n in local_names})

    def local_imports(self, module: str, scope: str, before: int) -> list[list[Any]]:
        """The import statements of function `scope` (qualified name) above line `before`:
        a guard's names bound by them (`from ...utils.common import get_device_sm`) are those
        imports, not unknown locals."""
        ir = self.store.get(module)
        if ir is None or not scope:
            return []
        body = ir["body"]
        for part in scope.split("."):
            found = next((st for st in body if st[0] in ("def", "class") and st[2].get("name") == part), None)
            if found is None:
                return []
            body = found[2]["body"]
        out: list[list[Any]] = []
        _imports_in(body, before, out)
        return out

    def _runtime_globals(self, module: ModuleVal) -> None:
        ir = self.store.get(module.name)
        if ir is None:
            return
        mirrored = self.mirrors.get(module.name, {})
        # Class attributes a method or function assigns (`cls._instance = ...`,
        # `Manager._scaling = True`) hold run-time state, not their class-body value.
        for cls_name, attr in _class_writes(ir["body"]):
            cls = module.globals.get(cls_name)
            if isinstance(cls, ClassVal) and attr in cls.attrs and not isinstance(cls.attrs[attr], FuncVal):
                cls.attrs[attr] = Unknown(f"{cls_name}.{attr} (set at run time)",
                                          {f"runtime:{module.name}.{cls_name}.{attr}"})
        rebinders = _rebinders(ir["body"])
        for name in _rebound(ir["body"]):
            if name in mirrored:
                module.globals[name] = mirrored[name]
            else:
                if name in module.globals and not isinstance(module.globals[name], Unknown):
                    self.first_call[(module.name, name)] = (module.globals[name], rebinders.get(name, {}))
                module.globals[name] = Unknown(f"{name} (set at run time)", {f"runtime:{module.name}.{name}"})

    def first_call_globals(self, module: str, scope: str, line: int) -> dict[str, Any]:
        """The globals a guard of function `scope` at `line` sees on that function's first call.

        A module global that this function rebinds only after the guard, and that every
        other function only sets back to its import-time value (`reset_...(): _X = False`),
        still has its import-time value when the function first runs (`if _INITIALISED:
        raise` before `_INITIALISED = True`): what that first call reaches is reached."""
        if not scope or not line:
            return {}
        out: dict[str, Any] = {}
        for (mod, name), (value, writers) in self.first_call.items():
            if mod != module or scope not in writers or writers[scope][0] <= line:
                continue
            others = [consts for fn, (_, consts) in writers.items() if fn != scope]
            if all(consts is not None and all(_same_constant(c, value) for c in consts) for consts in others):
                out[name] = value
        return out

    def top_level(self) -> None:
        """Each guard (and each module import it starts) gets the whole step budget."""
        self.steps = 0

    def module_for(self, facts: FileFacts) -> ModuleVal | None:
        if facts.module not in self.modules:
            self.top_level()
        try:
            module = self.import_module(facts.module, self._state)
        except Exception as exc:  # an interpreter gap in one module is unknowns there (needs module:X), not a crash
            give_up(f"{type(exc).__name__}: {exc}", f"importing {facts.module}")
            return None
        return module if isinstance(module, ModuleVal) else None


def _rebound(body: list[Any]) -> set[str]:
    out: set[str] = set()
    for stmt in body:
        kind = stmt[0]
        if kind == "def":
            _globals_in(view(ir.Def, stmt).func["body"], out)
        elif kind == "class":
            out |= _rebound(view(ir.ClassDef, stmt).cls["body"])
        elif kind == "if":
            branch = view(ir.If, stmt)
            out |= _rebound(branch.body) | _rebound(branch.orelse)
        elif kind == "try":   # the body and the handlers
            t = view(ir.Try, stmt)
            out |= _rebound(t.body)
            for _types, _name, handler_body in t.handlers:
                out |= _rebound(handler_body)
    return out


def _same_constant(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _rebinders(body: list[Any], prefix: str = "") -> dict[str, dict[str, tuple[int, frozenset[Any] | None]]]:
    """global name -> {qualified function: (line of its first assignment to the name, the
    constants it assigns there, or None when an assignment is not a constant)}."""
    out: dict[str, dict[str, tuple[int, frozenset[Any] | None]]] = {}
    for stmt in body:
        if stmt[0] == "class":
            cls = view(ir.ClassDef, stmt).cls
            for name, writers in _rebinders(cls["body"], f"{prefix}{cls['name']}.").items():
                out.setdefault(name, {}).update(writers)
        elif stmt[0] == "def":
            line, fn = view(ir.Def, stmt)
            qual = f"{prefix}{fn['name']}"
            names: set[str] = set()
            _globals_in(fn["body"], names)
            for name in names:
                found: list[tuple[int, Any]] = []
                _assignments(fn["body"], name, found)
                values = [v for _, v in found]
                consts = (frozenset(view(ir.Const, v).value for v in values)
                          if values and all(is_kind(v, "c") and _hashable(view(ir.Const, v).value) for v in values)
                          else None)
                # no assignment found: taken as rebinding on entry (the first call is not special)
                out.setdefault(name, {})[qual] = (min(at for at, _ in found) if found else line, consts)
    return out


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _nested(stmt: list[Any], into_defs: bool) -> list[list[Any]]:
    """The statement bodies nested in one statement (a def's only when `into_defs`)."""
    if stmt[0] == "def":
        return [view(ir.Def, stmt).func["body"]] if into_defs else []
    return nested_blocks(stmt)


def _assignments(body: list[Any], name: str, out: list[tuple[int, Any]]) -> None:
    """(line, assigned IR expression; None for an augmented one) of every binding of `name`."""
    for stmt in body:
        kind = stmt[0]
        if kind == "assign" and any(name_of(t) == name for t in view(ir.Assign, stmt).targets):
            out.append((view(ir.Assign, stmt).line, view(ir.Assign, stmt).value))
        elif kind == "aug" and name_of(view(ir.AugAssign, stmt).target) == name:
            out.append((view(ir.AugAssign, stmt).line, None))
        for inner in _nested(stmt, into_defs=True):
            _assignments(inner, name, out)


def _imports_in(body: list[Any], before: int, out: list[list[Any]]) -> None:
    for stmt in body:
        if stmt[0] == "import" and (not before or view(ir.Import, stmt).line < before):
            out.append(stmt)
        for inner in _nested(stmt, into_defs=False):
            _imports_in(inner, before, out)


def _globals_in(body: list[Any], out: set[str]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "pass" and len(stmt) > 3 and stmt[2] == "global":
            out.update(stmt[3])   # ["pass", line, "global", [name...]]
        elif kind == "def":
            _globals_in(view(ir.Def, stmt).func["body"], out)
        elif kind == "for":   # the body, not the else block
            _globals_in(view(ir.For, stmt).body, out)
        elif kind in ("if", "while", "with", "try"):
            for block in nested_blocks(stmt):
                _globals_in(block, out)


def _class_writes(body: list[Any]) -> list[tuple[str, str]]:
    """(class, attribute) for every `cls.x = ...` in a class's methods and `Class.x = ...` anywhere."""

    out: list[tuple[str, str]] = []

    def scan(stmts: list[Any], cls: str | None) -> None:
        for stmt in stmts:
            kind = stmt[0]
            if kind in ("assign", "aug"):
                targets = view(ir.Assign, stmt).targets if kind == "assign" else [view(ir.AugAssign, stmt).target]
                for t in targets:
                    base = name_of(view(ir.Attr, t).value) if is_kind(t, "a") else None
                    if base is None:
                        continue
                    if base == "cls" and cls:
                        out.append((cls, view(ir.Attr, t).attr))
                    elif base[:1].isupper():
                        out.append((base, view(ir.Attr, t).attr))
            elif kind == "def":
                scan(view(ir.Def, stmt).func["body"], cls)
            elif kind == "class":
                inner = view(ir.ClassDef, stmt).cls
                scan(inner["body"], inner["name"])
            else:
                for block in nested_blocks(stmt):
                    scan(block, cls)

    scan(body, None)
    return out
