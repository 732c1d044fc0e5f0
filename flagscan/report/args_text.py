"""report: parsed launch commands (values and diagnostics) as text and JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flagscan.facts.flags import UnknownValue

if TYPE_CHECKING:
    from flagscan.diagnostics import FileLocation
    from flagscan.report.shapes import Checked


def _loc(location: FileLocation | None) -> dict[str, Any] | None:
    return location.to_json() if location is not None else None


def command_json(parsed: Checked) -> dict[str, Any]:
    cmd = parsed.command
    return {
        "source": {"path": cmd.path, "line": cmd.line, "kind": cmd.kind},
        "argv": [t.text for t in cmd.args],
        "env": dict(cmd.env),
        "values": {
            dest: {"value": _plain(v.value), "option": v.option, "location": _loc(v.location)}
            for dest, v in parsed.values.items()
        },
        "diagnostics": [d.to_json() for d in parsed.diagnostics],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, UnknownValue):
        return value.to_json()
    return value


def render(parsed_commands: Iterable[Checked]) -> str:
    lines: list[str] = []
    for parsed in parsed_commands:
        cmd = parsed.command
        lines.append(f"{cmd.path}:{cmd.line}: {' '.join(cmd.launcher)} ({cmd.kind})")
        for dest, v in parsed.values.items():
            where = f"  line {v.location.line}" if v.location else ""
            lines.append(f"  {v.option} -> {dest} = {json.dumps(_plain(v.value), default=str)}{where}")
        for d in parsed.diagnostics:
            where = f"{d.location.path}:{d.location.line}:{d.location.column}: " if d.location else ""
            lines.append(f"  {where}{d.severity.value} {d.code}: {d.message}")
    return "\n".join(lines) if lines else "no launch commands"
