"""evaluate: the interpreter that gate guards are evaluated with (ast-lowered modules, runtime globals).

Modules come from the IR cache (flagscan/extract/irstore.py) that the read
extractor fills as it parses. After a module executes, every module global
that some function rebinds with `global` is replaced by what runtime code can
see: the setting it mirrors (`_ENABLE_DP_ATTENTION_FLAG = server_args.enable_dp_attention`
in `initialize_dp_attention`) or an unknown; its import-time value is not what
a request sees.
"""

from __future__ import annotations

from typing import Any

from flagscan.evaluate.interp import Interpreter
from flagscan.evaluate.state import State
from flagscan.evaluate.values import ClassVal, FuncVal, ModuleVal, Unknown
from flagscan.strict import give_up


class GateInterpreter(Interpreter):
    """An Interpreter whose modules see runtime values for rebound globals."""

    def __init__(self, store, world, mirrors: dict[str, dict[str, Any]], **kw: Any) -> None:
        super().__init__(store, world, call_budget=kw.pop("call_budget", 60_000), **kw)
        self.mirrors = mirrors   # module -> {global name: value}
        self._state = State({}, {})

    def import_module(self, name: str, state: State) -> Any:
        if name in self.modules:
            return super().import_module(name, state)
        # A module's objects (`_PLATFORM = PlatformContext()`) live in the heap of the state
        # its body ran in. Run it in the module-level state every guard starts from, even when
        # a guard's call imports it, so the next guard sees them too; this path sees them now.
        module = super().import_module(name, self._state)
        if state is not self._state:
            for oid, attrs in self._state.heap.items():
                state.heap.setdefault(oid, attrs)
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
        for name in _rebound(ir["body"]):
            if name in mirrored:
                module.globals[name] = mirrored[name]
            else:
                module.globals[name] = Unknown(f"{name} (set at run time)", {f"runtime:{module.name}.{name}"})

    def top_level(self) -> None:
        """Each guard (and each module import it starts) gets the whole step budget."""
        self.steps = 0

    def module_for(self, facts) -> ModuleVal | None:
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
            _globals_in(stmt[2]["body"], out)
        elif kind == "class":
            out |= _rebound(stmt[2]["body"])
        elif kind == "if":
            out |= _rebound(stmt[3]) | _rebound(stmt[4])
        elif kind == "try":
            out |= _rebound(stmt[2])
            for h in stmt[3]:
                out |= _rebound(h[2])
    return out


def _imports_in(body: list[Any], before: int, out: list[list[Any]]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "import" and (not before or stmt[1] < before):
            out.append(stmt)
        elif kind == "if":
            _imports_in(stmt[3], before, out)
            _imports_in(stmt[4], before, out)
        elif kind == "for":
            _imports_in(stmt[4], before, out)
            _imports_in(stmt[5], before, out)
        elif kind in ("while", "with"):
            _imports_in(stmt[3], before, out)
        elif kind == "try":
            _imports_in(stmt[2], before, out)
            for h in stmt[3]:
                _imports_in(h[2], before, out)
            _imports_in(stmt[4], before, out)
            _imports_in(stmt[5], before, out)


def _globals_in(body: list[Any], out: set[str]) -> None:
    for stmt in body:
        if stmt[0] == "pass" and len(stmt) > 3 and stmt[2] == "global":
            out.update(stmt[3])
        elif stmt[0] == "def":
            _globals_in(stmt[2]["body"], out)
        elif stmt[0] in ("if",):
            _globals_in(stmt[3], out)
            _globals_in(stmt[4], out)
        elif stmt[0] in ("for",):
            _globals_in(stmt[4], out)
        elif stmt[0] in ("while", "with"):
            _globals_in(stmt[3], out)
        elif stmt[0] == "try":
            _globals_in(stmt[2], out)
            for h in stmt[3]:
                _globals_in(h[2], out)
            _globals_in(stmt[4], out)
            _globals_in(stmt[5], out)


def _class_writes(body: list[Any]) -> list[tuple[str, str]]:
    """(class, attribute) for every `cls.x = ...` in a class's methods and `Class.x = ...` anywhere."""

    out: list[tuple[str, str]] = []

    def scan(stmts: list[Any], cls: str | None) -> None:
        for stmt in stmts:
            kind = stmt[0]
            if kind in ("assign", "aug"):
                targets = stmt[2] if kind == "assign" else [stmt[2]]
                for t in targets:
                    if isinstance(t, list) and t and t[0] == "a" and isinstance(t[1], list) and t[1][0] == "n":
                        base = t[1][1]
                        if base == "cls" and cls:
                            out.append((cls, t[2]))
                        elif base[:1].isupper():
                            out.append((base, t[2]))
            elif kind == "def":
                scan(stmt[2]["body"], cls)
            elif kind == "class":
                scan(stmt[2]["body"], stmt[2]["name"])
            elif kind == "if":
                scan(stmt[3], cls)
                scan(stmt[4], cls)
            elif kind == "for":
                scan(stmt[4], cls)
                scan(stmt[5], cls)
            elif kind in ("while", "with"):
                scan(stmt[3], cls)
            elif kind == "try":
                scan(stmt[2], cls)
                for h in stmt[3]:
                    scan(h[2], cls)
                scan(stmt[4], cls)
                scan(stmt[5], cls)

    scan(body, None)
    return out
