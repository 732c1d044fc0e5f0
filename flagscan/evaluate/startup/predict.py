"""evaluate: the startup phase of one launch command (library entry point), cached per scenario.

The resolution is run again here, by an interpreter that also follows the startup
code (flagscan/evaluate/startup/run.py), because the startup entry needs the
resolved record and the heap it lives on, not just the settings' values. The
result is cached under `<cache>/facts/startup/` keyed by flagscan's engine, the
tree, the command's values and the scenario, so a warm lint pays nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.values import Obj, Unknown
from flagscan.evaluate.startup.results import StartupRaise, StartupResult, StartupWrite
from flagscan.facts.flags import Inventory
from flagscan.ruledata import load, model_path_of

if TYPE_CHECKING:
    from flagscan.evaluate import Scenario
    from flagscan.evaluate.resolution.resolve import EntryRun
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.evaluate.world import World
    from flagscan.extract.irstore import ModuleStore


def predict_startup(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any],
                    scenario: Scenario) -> StartupResult:
    """The startup phase for a parsed command (`values`: dest -> value) on a Scenario."""
    from flagscan.evaluate import user_values
    from flagscan.evaluate.cachekey import scenario_key, shared

    given = user_values(values)
    key = scenario_key(root, given, scenario, "startup", load("startup"))
    return shared("startup", key, lambda: _predict(root, cache_dir, inventory, given, scenario, key))


# startup key -> the forked child running the startup entries into the cache (begin_startup)
_ENTRIES: dict[str, int] = {}


def begin_startup(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any],
                  scenario: Scenario) -> bool:
    """A cold run: the resolution entry is run once, by the interpreter that goes on into the
    startup phase; a forked child goes on with the startup entries and writes their result
    where `predict_startup` reads it, while this process keeps the resolution of the same run
    where `predict` reads it and goes on (a lint: to the runtime gates). False when the phase
    is cached, there is no cache, or no second core or fork: it is then computed when asked."""
    import os

    from flagscan.evaluate import can_fork, keep_resolution, user_values
    from flagscan.evaluate.cachekey import scenario_key

    if cache_dir is None or not can_fork():
        return False
    given = user_values(values)
    key = scenario_key(root, given, scenario, "startup", load("startup"))
    path = _path(cache_dir, key)
    if key in _ENTRIES or path.is_file():
        return False
    from flagscan.evaluate.resolution.resolve import resolution_of
    from flagscan.evaluate.resolution.results import jsonable
    from flagscan.extract.cache import cold_work_ahead, no_collector

    cold_work_ahead()
    run, store, world = entry_run(root, cache_dir, inventory, given, scenario)
    pid = os.fork()
    if pid == 0:  # the child: the startup entries, into the cache; it says nothing (the parent reports)
        code = 1
        try:
            no_collector()
            from flagscan.progress import set_quiet

            set_quiet(True)
            _write(path, _entries(run, inventory), jsonable)
            code = 0
        finally:
            os._exit(code)
    _ENTRIES[key] = pid

    def resolution() -> Resolution:
        out = resolution_of(run, store, inventory, given, load("resolution"))
        out.packages = dict(sorted(world.package_uses.items()))
        return out

    keep_resolution(root, cache_dir, given, scenario, resolution)
    return True


def _await_entries(key: str) -> None:
    """Wait for the child running this phase's startup entries, if one was begun (its result
    is then read; if it failed, the phase is computed here and what stopped it is raised)."""
    from flagscan.evaluate import await_child

    await_child(_ENTRIES, key)


def _path(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / "facts" / "startup" / f"{key}.json"


def _predict(root: Path, cache_dir: Path | None, inventory: Inventory, given: dict[str, Any], scenario: Scenario,
             key: str) -> StartupResult:
    from flagscan.evaluate.resolution.results import jsonable

    _await_entries(key)
    path = _path(cache_dir, key) if cache_dir is not None else None
    hit = _read(path)
    if hit is not None:
        return hit
    from flagscan.extract.cache import cold_work_ahead

    cold_work_ahead()  # a cold run: what it will need later can begin beside this
    result = _run(root, cache_dir, inventory, given, scenario)
    if path is not None:
        _write(path, result, jsonable)
    return result


def _run(root: Path, cache_dir: Path | None, inventory: Inventory, given: dict[str, Any], scenario: Scenario
         ) -> StartupResult:
    return _entries(entry_run(root, cache_dir, inventory, given, scenario)[0], inventory)


def entry_run(root: Path, cache_dir: Path | None, inventory: Inventory, given: dict[str, Any], scenario: Scenario
              ) -> tuple[EntryRun, ModuleStore, World]:
    """The resolution entry run by the interpreter that goes on into the startup phase (its
    parts are off until run_entries switches them on), with the store and world it ran on."""
    from flagscan.evaluate.resolution.resolve import run_entry
    from flagscan.evaluate.startup.run import startup_world
    from flagscan.evaluate.world import World
    from flagscan.extract.irstore import ModuleStore

    rules, srules = load("resolution"), load("startup")
    model_path = model_path_of(given)
    world = startup_world(World(scenario.gpu, dict(scenario.env), scenario.model, model_path,
                                dists=scenario.packages), Path(root), srules)

    from flagscan.evaluate.startup.interpreter import StartupInterpreter
    from flagscan.evaluate.startup.outside import (
        outside_calls,
        outside_constructs,
        outside_owns,
        outside_self,
        outside_stores,
    )

    class Interp(StartupInterpreter):
        returns_self, calls, stores = outside_self(srules), outside_calls(srules), outside_stores(srules)
        constructs, owns = outside_constructs(srules), outside_owns(srules)

    store = ModuleStore(root, cache_dir)
    return run_entry(store, inventory, given, world, rules, Interp), store, world


def _entries(run: EntryRun, inventory: Inventory) -> StartupResult:
    """The startup entries, from the end of the resolution entry's run."""
    from flagscan.evaluate.startup.interpreter import StartupInterpreter
    from flagscan.evaluate.startup.run import run_entries

    if run.problem is not None:
        result = StartupResult()
        result.stopped.append(f"{run.problem}: startup not followed")
        return result
    interp, state, record = run.interp, run.state, run.record
    assert isinstance(interp, StartupInterpreter)  # entry_run built the Interp class given to it
    if not run.completed or not isinstance(record, Obj):
        return StartupResult(reached=False)  # the resolution rejects the command on every path: FS301 says why
    state.raised = []
    result = run_entries(interp, state, record, load("startup"))
    # attributes startup code adds to the record (`use_mla_backend`) are not settings
    dests = {f.dest for f in inventory.flags}
    result.writes = {d: w for d, w in result.writes.items() if d in dests}
    return result


def _write(path: Path, result: StartupResult, jsonable: Callable[[Any], Any]) -> None:
    from flagscan.extract.cache import write_json

    doc = {"rejections": [r.to_json() for r in result.rejections],
           "writes": {d: {"value": jsonable(w.value), "known": not isinstance(w.value, Unknown), "location": w.location,
                          "handler": w.handler, "condition": w.condition, "certain": w.certain}
                      for d, w in result.writes.items()},
           "completed": result.completed, "reached": result.reached, "stopped": result.stopped, "run_dependent": result.run_dependent,
           "steps": result.steps, "not_followed": result.not_followed, "serving": result.serving}
    write_json(path, doc)


def _read(path: Path | None) -> StartupResult | None:
    if path is None or not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    rejections = [StartupRaise(r["location"], r["handler"], r["exception"], r["message"], r["condition"],
                               r["certain"], tuple(r.get("needs", ())), r["entry"], r["phase"],
                               tuple(r.get("reads", ())))
                  for r in doc["rejections"]]
    writes = {d: StartupWrite(d, w["value"] if w["known"] else Unknown(f"{d} (changed at startup)", {"runtime:" + d}),
                              w["location"], w["handler"], w["condition"], w["certain"])
              for d, w in doc["writes"].items()}
    return StartupResult(rejections, writes, doc["completed"], doc["reached"], doc["stopped"], doc["run_dependent"],
                         doc["steps"], doc["not_followed"], doc.get("serving", {}))
