"""report: lint results as the `flagscan/lint/v1` JSON payload (contract in DESIGN.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flagscan.report.shapes import FileFindings


def payload(results: Sequence[FileFindings], counts: dict[str, int], hardware: dict[str, Any] | None,
            notes: Sequence[str], gates: str) -> dict[str, Any]:
    return {
        "hardware": hardware,
        "diagnostics": [d.to_json() for r in results for d in r.diagnostics],
        "files": [{
            "path": r.path,
            "commands": [{"line": c.line, "launcher": list(c.launcher), "notes": list(c.notes)} for c in r.commands],
            "suppressed": r.suppressed,
        } for r in results],
        "summary": counts,
        "gates": gates,
        "notes": list(notes),
    }
