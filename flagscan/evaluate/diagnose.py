"""evaluate: turn a predicted resolution into diagnostics on the user's launch command."""

from __future__ import annotations

import json
import re
from typing import Any

from flagscan.diagnostics import Diagnostic, Evidence, FileLocation, Severity
from flagscan.evaluate.resolve import Resolution, Setting, jsonable
from flagscan.facts.flags import Inventory

_FIELD = re.compile(r"\b(?:self|server_args|args|cfg)\.(\w+)")


def _show(value: Any) -> str:
    text = json.dumps(jsonable(value), default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _blame(setting: Setting, parsed, command_location: FileLocation | None) -> FileLocation | None:
    """The user's flag that a cause's condition names, else the command itself."""
    for cause in setting.because:
        for name in _FIELD.findall(cause.condition or ""):
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
                              {"exception": r.exception, "needs": r.needs}))
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
            loc = parsed.values[dest].location if dest in parsed.values else where
            out.append(Diagnostic("FS102", Severity.WARNING,
                                  f"SGLang overrides {dest}={_show(s.user_value)} with {_show(s.value)} ({why})",
                                  dest, loc, evidence, {"value": jsonable(s.value), "user_value": jsonable(s.user_value)}))
        else:
            out.append(Diagnostic("FS101", Severity.INFO,
                                  f"knock-on: {dest} becomes {_show(s.value)} (default {_show(s.default)}) by {why}" if not s.because
                                  else f"knock-on: {dest} becomes {_show(s.value)} (default {_show(s.default)}) because {why}",
                                  dest, _blame(s, parsed, where), evidence,
                                  {"value": jsonable(s.value), "traced": bool(s.because)}))
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
