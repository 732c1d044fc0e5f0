"""evaluate: which of the command's settings a startup-phase raise is due to (library entry point).

A raise's path reads many settings (flagscan/evaluate/startup/serving.py SettingReads);
the ones it is due to are those the command gives, its path reads, and without which
(the flag left at its default, everything else the same) the same raise no longer fires.
Each candidate costs one more startup run (cached per scenario like any other); at most
MAX_CANDIDATES are tried, the last read first, and a setting whose removal leaves the
command unresolvable is not blamed (unknown stays unknown).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.startup.results import StartupRaise
from flagscan.facts.flags import Inventory

if TYPE_CHECKING:
    from flagscan.evaluate import Scenario

MAX_CANDIDATES = 4


def due_to(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any], scenario: Scenario,
           raised: StartupRaise) -> tuple[str, ...]:
    """The settings of `values` (dest -> value, as parsed) that `raised` (a StartupRaise) is due to."""
    from flagscan.evaluate.startup.predict import predict_startup

    given = [d for d in reversed(raised.reads) if d in values and d in {f.dest for f in inventory.flags}]
    out: list[str] = []
    for dest in list(dict.fromkeys(given))[:MAX_CANDIDATES]:
        rest = {k: v for k, v in values.items() if k != dest}
        other = predict_startup(root, cache_dir, inventory, rest, scenario)
        if not other.reached or other.stopped:
            continue  # without it the command does not resolve, or startup was not followed: not decided
        if not any(r.location == raised.location and r.message == raised.message for r in other.rejections):
            out.append(dest)
    return tuple(sorted(out))
