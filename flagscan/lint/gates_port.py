"""lint: the extension point where runtime gate verdicts (NO_OP and friends) plug into lint and diff.

The verdicts come from `flagscan.evaluate.gates`, a stage written separately. Until
that module exists (or while it lacks the entry point below) `flag_verdicts` returns
None, which every caller reports as "gates: not analysed" — never as "no no-ops".

The entry point expected of the gates stage::

    flag_verdicts(root, cache_dir, inventory, gpu, *, values, resolution, model, env)
        -> Mapping[dest, verdict]

where a verdict has `status` ("EFFECTIVE" | "NO_OP" | "CONDITIONAL" | "UNREAD" |
"REJECTED"), `certain` (bool, optional, default True) and `reads` (each with a
`location` "sglang/srt/...:line" and a `condition` source text), as attributes or
as the keys of its `to_json()`. Anything else is adapted here, in one place.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flagscan.diagnostics import Evidence

ENTRY = "flag_verdicts"


@dataclass(frozen=True, slots=True)
class GateVerdict:
    dest: str
    status: str
    certain: bool
    evidence: tuple[Evidence, ...]


def gates_module() -> Any | None:
    try:
        module = importlib.import_module("flagscan.evaluate.gates")
    except ImportError:
        return None
    return module if callable(getattr(module, ENTRY, None)) else None


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    if hasattr(obj, name):
        return getattr(obj, name)
    to_json = getattr(obj, "to_json", None)
    return to_json().get(name, default) if callable(to_json) else default


def adapt(dest: str, verdict: Any) -> GateVerdict:
    status = str(_field(verdict, "status", "")).upper().rsplit(".", 1)[-1]
    reads = _field(verdict, "reads", ()) or ()
    evidence = tuple(Evidence(str(_field(r, "location", "?")), str(_field(r, "condition", "") or ""))
                     for r in reads)
    return GateVerdict(dest, status, bool(_field(verdict, "certain", True)), evidence)


def verdicts(root: Any, cache_dir: Any, inventory: Any, gpu: Any, *, values: dict[str, Any] | None = None,
             resolution: Any = None, model: Any = None, env: dict[str, str] | None = None
             ) -> dict[str, GateVerdict] | None:
    """Every flag's verdict on `gpu` (for a command's values when given), or None (not analysed)."""
    module = gates_module()
    if module is None:
        return None
    raw = getattr(module, ENTRY)(root, cache_dir, inventory, gpu, values=values or {}, resolution=resolution,
                                 model=model, env=env or {})
    return {dest: adapt(dest, v) for dest, v in dict(raw).items()}


def flag_verdicts(ctx: Any) -> dict[str, GateVerdict] | None:
    """Verdicts for the flags of one command on its scenario's GPU, or None (not analysed)."""
    if gates_module() is None or ctx.scenario is None:
        return None
    values = {dest: v.value for dest, v in ctx.parsed.values.items()}
    return verdicts(ctx.target.root, ctx.target.cache_dir, ctx.inventory, ctx.scenario.gpu, values=values,
                    resolution=ctx.resolution, model=ctx.scenario.model, env=ctx.scenario.env)
