"""lint: how the resolution rules word an outcome (flagscan.evaluate.resolution.diagnose.Outcome)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import Evidence
from flagscan.evaluate.resolution.results import Setting, jsonable

if TYPE_CHECKING:
    from flagscan.evaluate.resolution.diagnose import Outcome


def show(value: Any) -> str:
    """A value as JSON, cut at 60 characters."""
    text = json.dumps(jsonable(value), default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def why(setting: Setting) -> str:
    """The first three steps that changed the setting (handler: condition)."""
    return "; ".join(f"{c.handler}: {c.condition or 'always'}" for c in setting.because[:3]) or \
        "SGLang's resolution (the step that wrote it was not traced)"


def causes(setting: Setting) -> tuple[Evidence, ...]:
    return tuple(Evidence(c.location, c.condition) for c in setting.because)


def changed_data(outcome: Outcome) -> dict[str, Any]:
    """What a knock-on or filled-in setting's finding carries."""
    s = outcome.setting
    drivers = None if outcome.driven_by is None else list(outcome.driven_by)
    return {"value": jsonable(s.value), "traced": bool(s.because), "driven_by": drivers}
