"""evaluate: the gate analysis of a whole revision for one or more GPUs (library entry point)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flagscan.evaluate.gates import FlagVerdict, GateEvaluator, Status
from flagscan.evaluate.gates_store import AstModuleStore, GateInterpreter
from flagscan.evaluate.values import Unknown
from flagscan.evaluate.world import ModelFacts, World
from flagscan.facts.flags import Inventory
from flagscan.hardware import GpuProfile


@dataclass(slots=True)
class GpuGates:
    gpu: GpuProfile
    label: str
    verdicts: dict[str, FlagVerdict]
    evaluator: GateEvaluator | None = None
    rejections: list[Any] = field(default_factory=list)


def runtime_settings(resolution) -> dict[str, Any]:
    """Effective settings from a predicted resolution: certain values, else unknowns naming the setting."""
    out: dict[str, Any] = {}
    for dest, setting in resolution.settings.items():
        value = setting.value
        if setting.certain and not isinstance(value, Unknown):
            out[dest] = value
        else:
            out[dest] = Unknown(dest, {f"setting:{dest}"})
    return out


def mirrors_of(tree_reads, dests: set[str], value_of) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for facts in tree_reads.files.values():
        for m in facts.mirrors:
            from flagscan.facts.reads import Read

            dest = Read(m.chain, m.namespaced, "", "", 0, "", ()).dest(dests)
            value = value_of(dest) if dest is not None else Unknown(m.name, {f"runtime:{m.name}"})
            if m.negate and not isinstance(value, Unknown):
                value = not value
            elif m.negate:
                value = Unknown(f"not {dest}", value.needs)
            out.setdefault(facts.module, {})[m.name] = value
    return out


def evaluate_gpu(root: Path, cache_dir: Path | None, inventory: Inventory, tree_reads, gpu: GpuProfile, *,
                 env: dict[str, str] | None = None, model: ModelFacts | None = None,
                 settings: dict[str, Any] | None = None, flags: list[str] | None = None,
                 label: str | None = None) -> GpuGates:
    dests = {f.dest for f in inventory.flags}
    dests |= {w.target for fa in tree_reads.files.values() for w in fa.writes}

    def value_of(dest: str) -> Any:
        if settings is not None and dest in settings:
            return settings[dest]
        return Unknown(dest, {f"setting:{dest}"})

    world = World(gpu, dict(env or {}), model, None)
    interp = GateInterpreter(AstModuleStore(root, cache_dir), world, mirrors_of(tree_reads, dests, value_of))
    evaluator = GateEvaluator(tree_reads, dests, interp, settings)
    wanted = flags if flags is not None else [f.dest for f in inventory.flags]
    verdicts = {dest: evaluator.flag(dest) for dest in wanted}
    return GpuGates(gpu, label or gpu.table_entry or gpu.sm, verdicts, evaluator)


__all__ = ["GpuGates", "Status", "evaluate_gpu", "runtime_settings"]
