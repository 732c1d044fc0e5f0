"""evaluate: the gate analysis of a whole revision for one or more GPUs (library entry point)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from flagscan.evaluate.gates.evaluator import FlagVerdict, GateEvaluator, ReadVerdict, Status
from flagscan.evaluate.gates.store import GateInterpreter
from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.world import ModelFacts, World
from flagscan.extract.irstore import ModuleStore
from flagscan.facts.flags import Inventory
from flagscan.facts.render import conjunction
from flagscan.hardware import GpuProfile

if TYPE_CHECKING:
    from flagscan.evaluate.packages import Packages
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.extract.reads import TreeReads


@dataclass(slots=True)
class GpuGates:
    gpu: GpuProfile
    label: str
    verdicts: dict[str, FlagVerdict]
    evaluator: GateEvaluator | None = None
    rejections: list[Any] = field(default_factory=list)


def runtime_settings(resolution: Resolution) -> dict[str, Any]:
    """Effective settings from a predicted resolution: certain values, else unknowns naming the setting."""
    out: dict[str, Any] = {}
    for dest, setting in resolution.settings.items():
        value = setting.value
        if setting.certain and not isinstance(value, Unknown):
            out[dest] = value
        else:
            out[dest] = Unknown(dest, {f"setting:{dest}"})
    return out


def runtime_env(resolution: Resolution, given: dict[str, str]) -> dict[str, str | None]:
    """The environment the runtime code sees: the given variables with what the resolution
    certainly set (None: removed); a variable it may have changed is not known."""
    from flagscan.evaluate.interp.envwrites import known_env

    return known_env(given, getattr(resolution, "env", {}) or {})


def mirrors_of(tree_reads: TreeReads, dests: set[str], value_of: Callable[[str], Any]) -> dict[str, dict[str, Any]]:
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


def evaluate_gpu(root: Path, cache_dir: Path | None, inventory: Inventory, tree_reads: TreeReads, gpu: GpuProfile, *,
                 env: dict[str, str | None] | None = None, model: ModelFacts | None = None,
                 settings: dict[str, Any] | None = None, flags: list[str] | None = None,
                 label: str | None = None, packages: Packages | None = None) -> GpuGates:
    dests = {f.dest for f in inventory.flags}
    dests |= {w.target for fa in tree_reads.files.values() for w in fa.writes}

    def value_of(dest: str) -> Any:
        if settings is not None and dest in settings:
            return settings[dest]
        return Unknown(dest, {f"setting:{dest}"})

    # None: a variable the resolution removed, which the open world answers as unset (World.env's
    # annotation, dict[str, str], does not say so)
    world = World(gpu, cast("dict[str, str]", dict(env or {})), model, None, env_open=True, dists=packages)
    interp = GateInterpreter(ModuleStore(root, cache_dir), world, mirrors_of(tree_reads, dests, value_of))
    evaluator = GateEvaluator(tree_reads, dests, interp, settings)
    wanted = flags if flags is not None else [f.dest for f in inventory.flags]
    verdicts = {dest: evaluator.flag(dest) for dest in wanted}
    return GpuGates(gpu, label or gpu.table_entry or gpu.sm, verdicts, evaluator)


def _needs_order(need: str) -> tuple[int, str]:
    order = ("setting:", "package:", "model", "env:", "gpu", "runtime:")
    for i, prefix in enumerate(order):
        if need.startswith(prefix):
            return i, need
    return len(order), need


def read_json(rv: ReadVerdict) -> dict[str, Any]:
    live = {True: "live", False: "dead", None: "unknown"}[rv.live]
    data: dict[str, Any] = {"location": rv.read.location, "condition": conjunction(g.guard.shown for g in rv.guards) or "always",
            "live": live, "function": rv.read.function or "<module>", "callers": rv.callers}
    if rv.read.via:
        data["via"] = rv.read.via
    dead = [g for g in rv.guards if g.truth is False]
    if dead:
        data["dead_because"] = sorted(dict.fromkeys(g.guard.shown for g in dead))
    if rv.live is False and not dead and rv.caller_results:
        data["dead_because"] = [f"every call site is dead ({len(rv.caller_results)} calls)"]
    return data


def location_key(location: str) -> tuple[str, int]:
    """`sglang/srt/x.py:12` in source order: path, then line as a number."""
    path, _, line = location.rpartition(":")
    return (path, int(line)) if line.isdigit() else (location, 0)


def verdict_json(gg: GpuGates, v: FlagVerdict) -> dict[str, Any]:
    # Orders here are not meaningful: sorted (by SGLang location), so that the same
    # input gives the same bytes whatever order the facts were extracted or evaluated in.
    reads = sorted((read_json(rv) for rv in v.reads), key=lambda r: (location_key(r["location"]), r["condition"]))
    data: dict[str, Any] = {"status": v.status.value, "reads": reads,
                            "needs": sorted(v.needs, key=_needs_order)}
    if v.steers:
        data["steers"] = sorted(v.steers)
    if v.rejections:
        data["rejections"] = sorted(v.rejections, key=lambda r: (location_key(r["location"]), r["message"] or ""))
    if v.status is Status.NO_OP and gg.evaluator is not None:
        data["evidence"] = sorted(evidence(gg.evaluator, v), key=lambda e: (
            location_key(e["guard_location"]), location_key(e["read"]), e.get("caller", "")))
    return data


def evidence(evaluator: GateEvaluator, v: FlagVerdict) -> list[dict[str, Any]]:
    from flagscan.evaluate.gates.evidence import guard_evidence

    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for rv in v.reads:
        facts = evaluator.tree.files.get(rv.read.path)
        for g in rv.deciding:
            if id(g.guard) in seen or facts is None:
                continue
            seen.add(id(g.guard))
            out.append({"read": rv.read.location, "guard": g.guard.shown,
                        "guard_location": f"{facts.path}:{g.guard.line}",
                        "names": guard_evidence(evaluator.interp, facts, g.guard)})
        if rv.live is False and not rv.deciding:
            for site, _t, results in rv.caller_results:
                site_facts = evaluator.tree.files.get(site.path)
                for g in results:
                    if g.truth is False and id(g.guard) not in seen and site_facts is not None:
                        seen.add(id(g.guard))
                        out.append({"read": rv.read.location, "caller": f"{site.path}:{site.line}",
                                    "guard": g.guard.shown, "guard_location": f"{site.path}:{g.guard.line}",
                                    "names": guard_evidence(evaluator.interp, site_facts, g.guard)})
    return out


def apply_rejections(gg: GpuGates, rejections: Iterable[Any], user_dests: set[str]) -> None:
    """A setting the command gives that a certain startup check names is REJECTED."""
    import re

    for rej in rejections:
        if not getattr(rej, "certain", False):
            continue
        text = f"{rej.condition} {rej.message or ''}"
        for dest in user_dests:
            if dest in gg.verdicts and re.search(rf"\b{re.escape(dest)}\b", text):
                v = gg.verdicts[dest]
                v.status = Status.REJECTED
                v.rejections.append({"location": rej.location, "condition": rej.condition,
                                     "message": str(rej.message) if rej.message is not None else None})


_JOBS: dict[str, Callable[[], Any]] = {}


def _run_job(label: str) -> tuple[str, Any]:
    import json

    return label, json.loads(json.dumps(_JOBS[label](), default=str))


def in_parallel(jobs: dict[str, Callable[[], Any]], workers: int | None = None) -> dict[str, Any]:
    """{label: build()} for JSON-able builds, in forked worker processes when there are several.

    Each GPU profile is an independent abstract execution of the same modules, so
    the GPUs of a report are spread over the cores; the jobs are closures, which
    only a forked child can run (elsewhere, and for one job, they run here)."""
    import multiprocessing
    import os

    workers = min(workers or os.cpu_count() or 1, len(jobs))
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return {label: build() for label, build in jobs.items()}
    from concurrent.futures import ProcessPoolExecutor

    _JOBS.clear()
    _JOBS.update(jobs)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return dict(pool.map(_run_job, list(jobs)))
    finally:
        _JOBS.clear()


def gpu_json(gg: GpuGates) -> dict[str, Any]:
    data: dict[str, Any] = {"hardware": gg.gpu.to_json(), "flags": {d: verdict_json(gg, v) for d, v in sorted(gg.verdicts.items())}}
    # where the gate interpreter could not follow SGLang's code (flagscan.evaluate.interp.giveup.Stop), sorted
    stops = getattr(gg.evaluator.interp, "stops", []) if gg.evaluator is not None else []
    data["stopped"] = [s.to_json() for s in sorted(stops, key=lambda s: (location_key(s.location), s.construct, s.what))]
    # the package facts a gate consulted, with the assumption each rests on (flagscan.evaluate.packages)
    world = gg.evaluator.interp.world if gg.evaluator is not None else None
    if world is not None and world.package_uses:
        data["packages"] = dict(sorted(world.package_uses.items()))
    return data


__all__ = ["GpuGates", "Status", "evaluate_gpu", "gpu_json", "runtime_env", "runtime_settings"]
