"""evaluate: evidence for a gate verdict: which names decided a guard, their values and definition sites.

For a guard such as `_is_sm90_supported or _is_sm100_supported` in
communicator.py, the evidence is each module-level name the test uses, its
value under the GPU, where it is bound (`_is_sm90_supported = _is_cuda and
is_sm90_supported()`, communicator.py:76) and, one level down, where the
predicates that binding calls are defined (`is_sm90_supported`,
sglang/srt/utils/common.py:264), found by following the modules' imports.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypedDict

from flagscan.evaluate.interp.base import truth
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Unknown
from flagscan.facts import ir as irv
from flagscan.facts.ir import Node, view
from flagscan.facts.reads import FileFacts, Guard, transform
from flagscan.facts.render import render
from flagscan.strict import give_up

if TYPE_CHECKING:
    from flagscan.evaluate.gates.store import GateInterpreter
    from flagscan.extract.irstore import ModuleStore


class _Place(TypedDict):
    name: str
    location: str   # sglang/srt/utils/common.py:264
    text: str       # the binding as source text


class Site(_Place, total=False):
    """Where a module-level name is bound; an assignment also gives its value's IR and module."""

    value_ir: Node
    module: str


class NameEvidence(_Place):
    """A name a guard uses: its value on this GPU, where it is bound, and where the names that
    binding uses are (one level down)."""

    value: Any
    defined_by: list[_Place]


def names_in(test: Any) -> list[str]:
    out: list[str] = []

    def visit(n: Any) -> Any:
        if n[0] == "n" and n[1] not in out and not n[1].startswith("__flagscan"):
            out.append(n[1])
        return None

    transform(test, visit)
    return out


def definition_site(store: ModuleStore, module: str, name: str, depth: int = 0) -> Site | None:
    """Where `name` is bound at module level in `module`, following imports and re-exports."""
    if depth > 6:
        return None
    ir = store.get(module)
    if ir is None:
        return None
    found = _binding(ir["body"], name)
    if found is None:
        for stmt in _top(ir["body"]):
            if stmt[0] == "import":
                for _local, mod, attr in view(irv.Import, stmt).names:
                    if attr == "*":
                        site = definition_site(store, mod, name, depth + 1)
                        if site is not None:
                            return site
        return None
    kind, stmt = found
    if kind == "import":
        _local, mod, attr = stmt
        if attr is None:
            return None
        site = definition_site(store, mod, attr, depth + 1)
        if site is None and store.module_file(f"{mod}.{attr}") is not None:
            submodule = store.get(f"{mod}.{attr}")
            assert submodule is not None, f"{mod}.{attr} has a file but no IR"
            return {"name": name, "location": f"{submodule['path']}:1", "text": f"module {mod}.{attr}"}
        return site
    if kind == "assign":
        assign = view(irv.Assign, stmt)
        return {"name": name, "location": f"{ir['path']}:{assign.line}", "text": f"{name} = {render(assign.value)}",
                "value_ir": assign.value, "module": module}
    fn = view(irv.Def, stmt).func if kind == "def" else view(irv.ClassDef, stmt).cls
    return {"name": name, "location": f"{ir['path']}:{fn['line']}", "text": f"{stmt[0]} {name}(...)", "module": module}


def _top(body: list[Node]) -> Iterator[Node]:
    for stmt in body:
        yield stmt
        if stmt[0] == "if":
            branch = view(irv.If, stmt)
            yield from _top(branch.body)
            yield from _top(branch.orelse)
        elif stmt[0] == "try":   # not the finally block
            t = view(irv.Try, stmt)
            yield from _top(t.body)
            for _types, _name, handler_body in t.handlers:
                yield from _top(handler_body)
            yield from _top(t.orelse)


def _binding(body: list[Node], name: str) -> tuple[str, Node] | None:
    found: tuple[str, Node] | None = None
    for stmt in _top(body):
        kind = stmt[0]
        if kind == "assign" and any(t == ["n", name] for t in view(irv.Assign, stmt).targets):
            found = ("assign", stmt)
        elif kind == "def" and view(irv.Def, stmt).func["name"] == name:
            found = (kind, stmt)
        elif kind == "class" and view(irv.ClassDef, stmt).cls["name"] == name:
            found = (kind, stmt)
        elif kind == "import":
            for local, mod, attr in view(irv.Import, stmt).names:
                if local == name and attr != "*":
                    found = ("import", [local, mod, attr])
    return found


def guard_evidence(interp: GateInterpreter, facts: FileFacts, guard: Guard) -> list[NameEvidence]:
    """The module-level names a guard uses, with their values and definition sites (two levels)."""
    local = set(facts.scopes.get(guard.scope, []))
    module = interp.module_for(facts)
    out: list[NameEvidence] = []
    for name in names_in(guard.test):
        if name in local or module is None or name not in module.globals:
            continue
        site = definition_site(interp.store, facts.module, name)
        if site is None:
            continue
        entry: NameEvidence = {"name": name, "value": _value(interp, module, name),
                               "location": site["location"], "text": site["text"], "defined_by": []}
        if "value_ir" in site:
            inner_module = site.get("module", facts.module)
            for inner in names_in(site["value_ir"]):
                inner_site = definition_site(interp.store, inner_module, inner)
                if inner_site is not None and inner_site["location"] != site["location"]:
                    entry["defined_by"].append({"name": inner, "location": inner_site["location"],
                                                "text": inner_site["text"]})
        out.append(entry)
    return out


def _value(interp: GateInterpreter, module: ModuleVal, name: str) -> Any:
    try:
        value = interp.eval(["n", name], State({}, {}), module)
    except Exception as exc:  # said, never a silent "unknown"
        give_up(f"{type(exc).__name__}: {exc}", f"evaluating {name}")
        return f"unknown (flagscan could not evaluate it: {type(exc).__name__})"
    if isinstance(value, Unknown):
        t = truth(value)  # `env_flag and is_hip()`: the value is unknown, its truth is not
        # `env_flag and is_hip()`: what it is in general is open, what it is on this GPU is not
        return "unknown" if t is None else f"unknown in general, {'true' if t else 'false'} on this GPU"
    shown = value if isinstance(value, (bool, int, str, float)) or value is None else truth(value)
    return "unknown" if shown is None else shown
