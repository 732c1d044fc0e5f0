"""lint: the extension point where runtime gate verdicts (NO_OP and friends) plug into lint and diff.

The verdicts come from the gate analysis (`flagscan.evaluate.gates.run.evaluate_gpu`
over the read facts of `flagscan.extract.reads.load_reads`); it is part of flagscan, so a
failure to import it is flagscan's defect and fails loudly, never "not analysed". Its records (FlagVerdict with a
Status, reads and the guards that decide them) are adapted here, in one place, to
GateVerdict: status, certainty, evidence as SGLang locations with source text.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flagscan.diagnostics import Evidence

ENTRY = "evaluate_gpu"


@dataclass(frozen=True, slots=True)
class GateVerdict:
    dest: str
    status: str
    certain: bool
    evidence: tuple[Evidence, ...]


def gates_module() -> Any:
    """The gate analysis entry module (imported on first use: a warm run that reads cached
    verdicts does not load the interpreter)."""
    importlib.import_module("flagscan.extract.reads")
    return importlib.import_module("flagscan.evaluate.gates.run")


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
    """Every flag's verdict on `gpu` (for a command's values when given), or None (not analysed).

    Cached per (engine, tree, flags, resolved settings and env, GPU, model): flagscan.evaluate.gates.cache."""
    module = gates_module()
    from flagscan.evaluate.gates.cache import cached_value, gates_key

    settings = module.runtime_settings(resolution) if resolution is not None else None
    if resolution is not None and hasattr(module, "runtime_env"):
        env = module.runtime_env(resolution, env or {})   # what the resolution certainly set is known
    flags = sorted(values) if values else None
    key = gates_key(root, gpu, env, model, settings, set(), flags, "lint", _PORT_VERSION)
    plain = cached_value(cache_dir, "gate-verdicts", key,
                         lambda: _evaluate(module, root, cache_dir, inventory, gpu, env, model, settings, flags))
    return {dest: GateVerdict(dest, status, certain, tuple(Evidence(loc, text) for loc, text in evidence))
            for dest, status, certain, evidence in plain}


_PORT_VERSION = 1   # bump when what _evaluate keeps changes


def _evaluate(module: Any, root: Any, cache_dir: Any, inventory: Any, gpu: Any, env: dict[str, Any] | None,
              model: Any, settings: dict[str, Any] | None, flags: list[str] | None
              ) -> tuple[tuple[str, str, bool, tuple[tuple[str, str], ...]], ...]:
    """The verdicts as plain tuples (what the cache holds)."""
    from flagscan.extract.reads import load_reads
    from flagscan.progress import GATING, activity, tracker

    # cold, this parses the tree (lint, diff): a bar on a terminal (flagscan.progress)
    reads = load_reads(root, cache_dir, progress=tracker("flagscan: reading SGLang's source"))
    with activity(GATING):
        gg = getattr(module, ENTRY)(root, cache_dir, inventory, reads, gpu, env=env or {}, model=model,
                                    settings=settings, flags=flags)
    out: list[tuple[str, str, bool, tuple[tuple[str, str], ...]]] = []
    for dest, v in sorted(gg.verdicts.items()):
        status = getattr(v.status, "value", str(v.status))
        evidence: list[Evidence] = []
        if status == "NO_OP" and gg.evaluator is not None:
            for item in module.evidence(gg.evaluator, v):
                evidence.append(Evidence(str(item.get("guard_location", "?")), str(item.get("guard", ""))))
                if item.get("read"):
                    evidence.append(Evidence(str(item["read"]), f"read of {dest}"))
                for name in item.get("names") or ():
                    if isinstance(name, dict) and name.get("location"):
                        evidence.append(Evidence(str(name["location"]), str(name.get("text") or name.get("name") or "")))
        # The gate stage states NO_OP only when every read is certainly dead (else CONDITIONAL).
        out.append((dest, status, bool(not getattr(v, "needs", None) or status == "NO_OP"),
                    tuple((e.location, e.text) for e in dict.fromkeys(evidence))))
    return tuple(out)


def flag_verdicts(ctx: Any) -> dict[str, GateVerdict] | None:
    """Verdicts for the flags of one command on its scenario's GPU, or None (not analysed)."""
    if ctx.scenario is None:
        return None
    values = {dest: v.value for dest, v in ctx.parsed.values.items()}
    return verdicts(ctx.target.root, ctx.target.cache_dir, ctx.inventory, ctx.scenario.gpu, values=values,
                    resolution=ctx.resolution, model=ctx.scenario.model, env=ctx.scenario.env)
