"""diffing: the extension point for hardware-gate changes between revisions (flagscan.evaluate.gates).

For every GPU asked about, each flag's runtime verdict (EFFECTIVE, NO_OP, ...) at
both revisions, compared. Returns None without a GPU, so reports say "gates: not
analysed" instead of an empty list that reads as "no change".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flagscan.diffing.model import GateChanges
from flagscan.lint.gates_port import verdicts


def diff_gates(old: Any, new: Any, gpus: Sequence[Any]) -> GateChanges | None:
    """`old`/`new`: flagscan.lint.Target; `gpus`: GpuProfiles."""
    if not gpus:
        return None
    added, removed, changed = [], [], []
    for gpu in gpus:
        before = verdicts(old.root, old.cache_dir, old.inventory, gpu) or {}
        after = verdicts(new.root, new.cache_dir, new.inventory, gpu) or {}
        for dest in sorted(before.keys() | after.keys()):
            x, y = before.get(dest), after.get(dest)
            entry = {"gpu": gpu.table_entry or gpu.sm, "dest": dest}
            if x is not None and y is not None and x.status == y.status:
                continue
            if x is None and y is not None:
                added.append({**entry, "status": y.status})
            elif y is None and x is not None:
                removed.append({**entry, "status": x.status})
            elif x is not None and y is not None and x.status != y.status:
                changed.append({**entry, "old": x.status, "new": y.status,
                                "evidence": [e.to_json() for e in y.evidence]})
    return GateChanges(tuple(added), tuple(removed), tuple(changed))
