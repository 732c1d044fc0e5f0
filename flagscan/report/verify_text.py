"""report: a verify result as text and as the `verify` JSON contract."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flagscan.evaluate import Scenario
    from flagscan.report.shapes import Observation, Verified


def to_json(report: Verified, observed: Observation, scenario: Scenario) -> dict[str, Any]:
    """`{"matched": N, "differences": [{"setting", "predicted", "actual", "kind"}]}` and context."""
    return {
        "hardware": scenario.gpu.to_json(),
        "observed": {"source": observed.source, "version": observed.version,
                     "ranks": len(observed.ranks), "notes": list(observed.notes),
                     **({"local": observed.facts} if observed.facts else {})},
        "matched": report.matched,
        "compared": report.compared,
        "differences": [d.to_json() for d in report.differences],
        "summary": {k: sum(1 for d in report.differences if d.kind.value == k)
                    for k in ("gap", "surprise", "unpredictable")},
        "warnings": [w.to_json() for w in report.warnings],
        "not_predicted": list(report.not_predicted),
        "notes": list(report.notes),
    }


def _v(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


_TITLES = {"gap": "GAP", "surprise": "SURPRISE", "unpredictable": "unpredictable"}


def render(report: Verified, observed: Observation, scenario: Scenario) -> str:
    gpu = scenario.gpu
    lines = [f"verify against {observed.source}"
             + (f" (SGLang {observed.version})" if observed.version else "")
             + f" on {gpu.count}x {gpu.name or gpu.sm} ({gpu.sm})"]
    for note in observed.notes:
        lines.append(f"  note: {note}")
    order = {"gap": 0, "surprise": 1, "unpredictable": 2}
    for d in sorted(report.differences, key=lambda d: (order[d.kind.value], d.setting)):
        lines.append(f"  {_TITLES[d.kind.value]:<13} {d.setting}: predicted {_v(d.predicted)}, actual {_v(d.actual)}"
                     + (f" (the command set {_v(d.user_value)})" if d.user_given else ""))
        lines.append(f"      {d.why}")
        for loc in d.locations[:3]:
            lines.append(f"      at {loc}")
        if d.seen_in_log is not None:
            lines.append(f"      SGLang said so at log line {d.seen_in_log}")
    seen = [w for w in report.warnings if w.line is not None]
    if report.warnings:
        lines.append(f"  SGLang's own messages for predicted adjustments: {len(seen)} of {len(report.warnings)} found")
    gaps = sum(1 for d in report.differences if d.kind.value == "gap")
    surprises = sum(1 for d in report.differences if d.kind.value == "surprise")
    lines.append(f"{report.matched} of {report.compared} settings as predicted; {gaps} gap(s), "
                 f"{surprises} surprise(s), {len(report.differences) - gaps - surprises} unpredictable")
    return "\n".join(lines)
