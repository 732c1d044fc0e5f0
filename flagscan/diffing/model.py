"""diffing: what changed between two SGLang revisions, as plain records (rendered in flagscan/report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FlagChanges:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    renamed: tuple[dict[str, str], ...]
    changed: tuple[dict[str, Any], ...]        # {"dest", "field", "old", "new"}
    options_added: tuple[str, ...] = ()
    options_removed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"added": list(self.added), "removed": list(self.removed), "renamed": list(self.renamed),
                "changed": list(self.changed),
                "options": {"added": list(self.options_added), "removed": list(self.options_removed)}}


@dataclass(frozen=True, slots=True)
class EffectChanges:
    added: tuple[dict[str, Any], ...]
    removed: tuple[dict[str, Any], ...]
    changed: tuple[dict[str, Any], ...]        # {"kind", "target", "what", "old", "new"}
    moved: int = 0                              # same key, other file/handler/line: not a change

    @property
    def rejections_added(self) -> tuple[dict[str, Any], ...]:
        return tuple(e for e in self.added if e["kind"] == "reject")

    def to_json(self) -> dict[str, Any]:
        return {"added": list(self.added), "removed": list(self.removed), "changed": list(self.changed),
                "moved": self.moved, "rejections_added": list(self.rejections_added)}


@dataclass(frozen=True, slots=True)
class GateChanges:
    """Per GPU: flags whose runtime verdict changes. None in a report means "not analysed"."""

    added: tuple[dict[str, Any], ...]
    removed: tuple[dict[str, Any], ...]
    changed: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"analysed": True, "added": list(self.added), "removed": list(self.removed),
                "changed": list(self.changed)}


def gates_not_analysed(reason: str) -> dict[str, Any]:
    return {"analysed": False, "reason": reason, "added": None, "removed": None, "changed": None}


@dataclass(frozen=True, slots=True)
class UnitChange:
    """One launch command of a service file on one GPU: its upgrade findings (FS5xx diagnostics)."""

    path: str
    line: int
    gpu: str
    diagnostics: tuple[Any, ...]
    settings: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "gpu": self.gpu, "settings": list(self.settings),
                "diagnostics": [d.to_json() for d in self.diagnostics], "notes": list(self.notes)}


@dataclass(frozen=True, slots=True)
class DiffReport:
    old: dict[str, Any]                         # the revisions' `sglang` JSON
    new: dict[str, Any]
    flags: FlagChanges
    effects: EffectChanges
    gates: GateChanges | None
    units: tuple[UnitChange, ...] = field(default=())
    gates_reason: str = "no --gpu given"

    def to_json(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "flags": self.flags.to_json(), "effects": self.effects.to_json(),
                "gates": self.gates.to_json() if self.gates is not None else gates_not_analysed(self.gates_reason),
                "units": [u.to_json() for u in self.units], "summary": summary(self)}


def summary(report: DiffReport) -> dict[str, Any]:
    f, e = report.flags, report.effects
    return {
        "flags_added": len(f.added), "flags_removed": len(f.removed), "flags_renamed": len(f.renamed),
        "flags_changed": len(f.changed), "options_removed": len(f.options_removed),
        "effects_added": len(e.added), "effects_removed": len(e.removed), "effects_changed": len(e.changed),
        "effects_moved": e.moved, "rejections_added": len(e.rejections_added),
        "gates": "analysed" if report.gates is not None else "not analysed",
        "unit_findings": sum(len(u.diagnostics) for u in report.units),
    }
