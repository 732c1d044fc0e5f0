"""evaluate: turn a predicted resolution into diagnostics on the user's launch command."""

from __future__ import annotations

import json
import re
from typing import Any

from flagscan.diagnostics import Diagnostic, Evidence, FileLocation, Severity
from flagscan.evaluate.resolve import Resolution, Setting, jsonable
from flagscan.facts.flags import Inventory
from flagscan.ruledata import condition_fields



def _show(value: Any) -> str:
    text = json.dumps(jsonable(value), default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _blame(setting: Setting, parsed, command_location: FileLocation | None) -> FileLocation | None:
    """The user's flag that a cause's condition names, else the command itself."""
    for cause in setting.because:
        for name in condition_fields().findall(cause.condition or ""):
            value = parsed.values.get(name)
            if value is not None and value.location is not None:
                return value.location
    return command_location


def knock_on_diagnostics(resolution: Resolution, parsed, inventory: Inventory) -> list[Diagnostic]:
    command = parsed.command
    where = FileLocation(command.path, command.line, 1)
    out: list[Diagnostic] = []
    for r in resolution.rejections:
        code, severity = ("FS301", Severity.ERROR) if r.certain else ("FS302", Severity.WARNING)
        verb = "refuses to start" if r.certain else "may refuse to start"
        out.append(Diagnostic(code, severity, f"SGLang {verb}: {r.message}", None, where,
                              (Evidence(r.location, r.condition),),
                              {"exception": r.exception, "needs": r.needs, "depends": r.depends}))
    out.extend(stopped_diagnostics(resolution, where))
    for dest, s in resolution.settings.items():
        if s.origin != "adjusted":
            continue
        evidence = tuple(Evidence(c.location, c.condition) for c in s.because)
        why = "; ".join(f"{c.handler}: {c.condition or 'always'}" for c in s.because[:3]) or \
            "SGLang's resolution (the step that wrote it was not traced)"
        if not s.certain:
            out.append(Diagnostic("FS401", Severity.INFO,
                                  f"{dest} may be changed by SGLang ({why}); needs {', '.join(s.needs) or 'run-time facts'}",
                                  dest, where, evidence, {"needs": s.needs}))
            continue
        if s.user_given:
            given_as = dest if dest in parsed.values else s.via  # a translated deprecated flag: where it is
            loc = parsed.values[given_as].location if given_as in parsed.values else where
            out.append(Diagnostic("FS102", Severity.WARNING,
                                  f"SGLang overrides {dest}={_show(s.user_value)} with {_show(s.value)} ({why})",
                                  dest, loc, evidence, {"value": jsonable(s.value), "user_value": jsonable(s.user_value)}))
        else:
            drivers = driven_by(s, set(parsed.values), set(resolution.settings))
            # reacting to nothing given (no user flag, no hardware or model fact): a filled-in default
            if drivers == []:
                text = f"SGLang fills in {dest} = {_show(s.value)} (default {_show(s.default)}; {why})"
            elif not s.because:
                text = f"knock-on: {dest} becomes {_show(s.value)} (default {_show(s.default)}) by {why}"
            else:
                text = f"knock-on: {dest} becomes {_show(s.value)} (default {_show(s.default)}) because {why}"
            out.append(Diagnostic("FS101" if drivers != [] else "FS103", Severity.INFO, text,
                                  dest, _blame(s, parsed, where), evidence,
                                  {"value": jsonable(s.value), "traced": bool(s.because),
                                   "driven_by": drivers}))
    return out


def stopped_diagnostics(resolution: Resolution, where: FileLocation | None) -> list[Diagnostic]:
    """Each place the interpreter could not follow SGLang's code (FS402), sorted: what it
    stopped on and what that leaves unknown."""
    out = []
    for stop in sorted(resolution.stops, key=lambda s: (s.location, s.construct, s.what)):
        out.append(Diagnostic("FS402", Severity.WARNING,
                              f"analysis stopped at {stop.location}: {stop.construct}; {stop.what} is unknown",
                              None, where, (Evidence(stop.location, stop.construct),),
                              {"construct": stop.construct, "unknown": stop.what}))
    return out


# Python's own functions: calling one reads only its arguments (no hardware, no model).
_PURE = frozenset({"len", "isinstance", "getattr", "hasattr", "str", "int", "float", "bool", "any", "all",
                   "min", "max", "sorted", "list", "dict", "set", "tuple", "abs", "round", "repr", "type"})


def driven_by(setting: Setting, given: set[str], fields: set[str]) -> list[str] | None:
    """What the steps that changed `setting` react to, from their conditions' data flow:
    user-given fields (by dest), `call:f` for a call into anything but Python's own
    functions (a hardware or model probe), `name:x` for a value whose origin is not
    visible in the condition; [] when they test only fields nobody gave (a default
    filled in: `if self.x is None: self.x = 1000`); None when no step was traced."""
    if not setting.because:
        return None
    bases = {"self"} | {b for c in setting.because for b in re.findall(rf"\b(\w+)\.{setting.dest}\b", c.condition or "")}
    out: set[str] = set()
    for cause in setting.because:
        if cause.fallback or not cause.condition:
            continue  # the field's declared fallback, or an unconditional write inside the fill
        out |= _condition_inputs(cause.condition, bases, fields, given, setting.dest)
    return sorted(out)


def _condition_inputs(text: str, bases: set[str], fields: set[str], given: set[str], own: str) -> set[str]:
    import ast

    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return {f"name:{text[:60]}"}
    walrus = {n.target.id for n in ast.walk(tree) if isinstance(n, ast.NamedExpr)}
    field_nodes = {id(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                   and n.value.id in bases and n.attr in fields}
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in called and isinstance(node, ast.Name):
            continue  # named with its call (`call:f`)
        if isinstance(node, ast.Attribute) and id(node) in field_nodes:
            if node.attr in given and node.attr != own:
                out.add(node.attr)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in _PURE:
                continue
            if isinstance(func, ast.Attribute) and id(func.value) in field_nodes:
                continue  # a method of a field's value (`self.model_path.lower()`)
            out.add(f"call:{ast.unparse(func)}")
        elif isinstance(node, ast.Name) and node.id not in bases and node.id not in walrus \
                and node.id not in _PURE and node.id not in ("None", "True", "False"):
            out.add(f"name:{node.id}")
    return out
