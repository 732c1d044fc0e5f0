"""diffing: the whole comparison of two revisions (flags, effects, gates, units)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flagscan.diffing.effects import diff_effects
from flagscan.diffing.flags import diff_flags
from flagscan.diffing.gates import diff_gates
from flagscan.diffing.model import DiffReport
from flagscan.diffing.units import diff_units
from flagscan.lint import Target


def diff_revisions(old: Target, new: Target, old_json: dict[str, Any], new_json: dict[str, Any], *,
                   services: Sequence[str] = (), gpus: Sequence[Any] = (),
                   model: Callable[[str | None], Any] | None = None, env: dict[str, str] | None = None
                   ) -> DiffReport:
    from flagscan.extract.effects import extract_effects

    dests = {f.dest for f in old.inventory.flags} | {f.dest for f in new.inventory.flags}
    effects = diff_effects(extract_effects(old.root, old.cache_dir), extract_effects(new.root, new.cache_dir), dests)
    units = diff_units(old, new, services, gpus, model, env or {}) if services else []
    reason = "no --gpu given"   # the only time diff_gates gives None
    return DiffReport(old_json, new_json, diff_flags(old.inventory, new.inventory), effects,
                      diff_gates(old, new, gpus), tuple(units), reason)
