"""evaluate: what a predicted resolution did to the user's launch command, as neutral outcomes.

An `Outcome` says what happened (a rejection, a setting changed, a place the analysis
stopped), where in the launch file it belongs and what drove it; the lint rules of
flagscan/lint/rules/ give it a code, a severity and a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from flagscan.diagnostics import FileLocation
from flagscan.evaluate.resolution.results import Rejection, Resolution, Setting
from flagscan.ruledata import condition_fields


class OutcomeKind(str, Enum):
    REJECTED = "rejected"                # a start-up check certainly raises
    MAY_REJECT = "may-reject"            # one raises under facts not given
    STOPPED = "analysis-stopped"         # the interpreter could not follow SGLang's code here
    MAY_CHANGE = "may-change"            # a setting SGLang may adjust (not certain)
    OVERRIDDEN = "overridden"            # SGLang replaces a value the user gave
    KNOCK_ON = "knock-on"                # SGLang changes a setting in reaction to what was given
    FILLED_IN = "filled-in"              # SGLang fills in a default, reacting to nothing given


@dataclass(frozen=True, slots=True)
class Outcome:
    """One thing the resolution did to a launch command. `subject` is the `Rejection`, the
    `Setting` or the interpreter's stop (flagscan.evaluate.interp.giveup.Stop); `location` the place
    in the launch file it belongs to; `driven_by` what a knock-on setting reacted to
    (`driven_by()`), None where not asked."""

    kind: OutcomeKind
    location: FileLocation | None
    subject: Any
    driven_by: tuple[str, ...] | None = None

    @property
    def setting(self) -> Setting:
        assert isinstance(self.subject, Setting), self.kind
        return self.subject

    @property
    def rejection(self) -> Rejection:
        assert isinstance(self.subject, Rejection), self.kind
        return self.subject


class _Place(Protocol):
    """Where a launch command is (flagscan.inputs' LaunchCommand)."""

    @property
    def path(self) -> str: ...

    @property
    def line(self) -> int: ...


class _Given(Protocol):
    """One value the command gives (flagscan.inputs' FlagValue)."""

    @property
    def location(self) -> FileLocation | None: ...


class Parsed(Protocol):
    """What the outcomes need of a parsed launch command (flagscan.inputs' ParsedCommand, which
    evaluate does not import): the command's place and the values it gives, by dest."""

    @property
    def command(self) -> _Place: ...

    @property
    def values(self) -> Mapping[str, _Given]: ...


def _blame(setting: Setting, parsed: Parsed, command_location: FileLocation | None) -> FileLocation | None:
    """The user's flag that a cause's condition names, else the command itself."""
    for cause in setting.because:
        for name in condition_fields().findall(cause.condition or ""):
            value = parsed.values.get(name)
            if value is not None and value.location is not None:
                return value.location
    return command_location


def outcomes(resolution: Resolution, parsed: Parsed) -> list[Outcome]:
    """Rejections, then the places analysis stopped (sorted), then changed settings in the
    resolution's order."""
    command = parsed.command
    where = FileLocation(command.path, command.line, 1)
    out = [Outcome(OutcomeKind.REJECTED if r.certain else OutcomeKind.MAY_REJECT, where, r)
           for r in resolution.rejections]
    out.extend(Outcome(OutcomeKind.STOPPED, where, stop)
               for stop in sorted(resolution.stops, key=lambda s: (s.location, s.construct, s.what)))
    for dest, s in resolution.settings.items():
        if s.origin != "adjusted":
            continue
        if not s.certain:
            out.append(Outcome(OutcomeKind.MAY_CHANGE, where, s))
        elif s.user_given:
            given_as = dest if dest in parsed.values else s.via  # a translated deprecated flag: where it is
            loc = parsed.values[given_as].location if given_as is not None and given_as in parsed.values else where
            out.append(Outcome(OutcomeKind.OVERRIDDEN, loc, s))
        else:
            drivers = driven_by(s, set(parsed.values), set(resolution.settings))
            # reacting to nothing given (no user flag, no hardware or model fact): a filled-in default
            kind = OutcomeKind.FILLED_IN if drivers == [] else OutcomeKind.KNOCK_ON
            out.append(Outcome(kind, _blame(s, parsed, where), s, None if drivers is None else tuple(drivers)))
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
