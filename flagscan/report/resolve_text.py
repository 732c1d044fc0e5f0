"""report: a predicted resolution as text and as the `resolve` JSON contract."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.resolution.results import jsonable

if TYPE_CHECKING:
    from flagscan.diagnostics import Diagnostic
    from flagscan.evaluate import Scenario
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.report.shapes import Checked, Command

    # one command's prediction: the command, its parse, what it is predicted for, the
    # resolution, and the diagnostics of the parse and the resolution
    Predicted = tuple[Command, Checked, Scenario, Resolution, list[Diagnostic]]


def to_json(result: Predicted, show_all: bool = True) -> dict[str, Any]:
    command, _parsed, scenario, resolution, diagnostics = result
    settings = {d: s.to_json() for d, s in resolution.settings.items()
                if show_all or s.origin != "default"}
    return {
        "hardware": scenario.gpu.to_json(),
        "model": {"source": scenario.model.origin, "architectures": scenario.model.architectures}
        if scenario.model else None,
        "source": {"path": command.path, "line": command.line},
        "settings": settings,
        "rejections": [r.to_json() for r in resolution.rejections],
        "diagnostics": [d.to_json() for d in diagnostics],
        "completed": resolution.completed,
        "stopped": [s.to_json() for s in sorted(resolution.stops, key=lambda s: (s.location, s.construct, s.what))],
        "notes": resolution.notes,
    }


def _v(value: Any) -> str:
    return json.dumps(jsonable(value), default=str)


def render(results: Iterable[Predicted], show_all: bool = False) -> str:
    lines: list[str] = []
    for command, parsed, scenario, resolution, _diagnostics in results:
        gpu = scenario.gpu
        lines.append(f"{command.path}:{command.line}: {gpu.count}x {f'{gpu.name} ({gpu.sm})' if gpu.name and gpu.name != gpu.sm else gpu.sm}"
                     + (f", model {', '.join(scenario.model.architectures or [])}" if scenario.model else ", no model config"))
        for r in resolution.rejections:
            tag = "REJECTED" if r.certain else "may be rejected"
            lines.append(f"  {tag}: {r.message}")
            lines.append(f"      at {r.location} in {r.handler}" + (f" when {r.condition}" if r.condition else ""))
        for dest, s in resolution.settings.items():
            if s.origin == "default" and not show_all:
                continue
            if s.origin == "user" and not show_all:
                continue
            mark = "" if s.certain else " (uncertain)"
            base = f"user {_v(s.user_value)}" if s.user_given else f"default {_v(s.default)}"
            value = _v(s.value) if s.certain else ("one of " + ", ".join(_v(o) for o in s.options) if s.options else "unknown")
            lines.append(f"  {dest} = {value}{mark}  [{s.origin}; {base}]")
            for c in s.because:
                cond = f" if {c.condition}" if c.condition else ""
                lines.append(f"      {c.location} {c.handler}{cond}")
                if c.message:
                    lines.append(f"        says: {c.message[:200]}")
            if s.needs:
                lines.append(f"      needs: {', '.join(s.needs)}")
        for stop in sorted(resolution.stops, key=lambda s: (s.location, s.construct, s.what)):
            needs = f" (those values need: {', '.join(sorted(stop.needs))})" if stop.needs else ""
            lines.append(f"  analysis stopped at {stop.location}: {stop.construct}; {stop.what} is unknown{needs}")
        for d in parsed.diagnostics:
            lines.append(f"  {d.severity.value} {d.code}: {d.message}")
    return "\n".join(lines)
