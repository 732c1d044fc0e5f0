"""report: the startup phase of a prediction, merged into the `resolve` JSON contract and its text."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.resolution.results import jsonable

if TYPE_CHECKING:
    from flagscan.evaluate.startup.results import StartupResult


def merge_json(payload: dict[str, Any], startup: StartupResult | None) -> dict[str, Any]:
    """`payload` (resolve's JSON) with startup rejections, settings written at startup and a status block."""
    for r in payload.get("rejections", []):
        r.setdefault("phase", "resolution")
    if startup is None:
        payload["startup"] = {"analysed": False}
        return payload
    payload["rejections"] = payload.get("rejections", []) + [r.to_json() for r in startup.rejections]
    settings = payload.setdefault("settings", {})
    for dest, w in sorted(startup.writes.items()):
        entry = settings.setdefault(dest, {"value": None, "default": None, "origin": "default", "certain": True,
                                           "because": []})
        entry.update({"value": jsonable(w.value), "origin": "adjusted", "certain": w.certain, "phase": "startup"})
        entry["because"] = list(entry.get("because", [])) + [
            {"location": w.location, "handler": w.handler, "condition": w.condition, "message": None,
             "certain": w.certain, "phase": "startup"}]
    payload["startup"] = status(startup)
    return payload


def status(startup: StartupResult) -> dict[str, Any]:
    return {"analysed": True, "reached": startup.reached, "completed": startup.completed,
            "stopped": list(startup.stopped), "run_dependent_raises": startup.run_dependent,
            "not_followed": sorted(startup.not_followed), "steps": startup.steps,
            "serving": {"methods": 0, "steps": 0, "exhausted": [], "not_built": [], "modes": [], **startup.serving}}


def render(startup: StartupResult | None) -> list[str]:
    """Text lines for `resolve`: what startup rejects and changes, and how far it was followed."""
    if startup is None:
        return ["  startup: not analysed (--no-startup)"]
    if not startup.reached:
        return ["  startup: not reached (the resolution rejects the command)"]
    lines: list[str] = []
    for r in startup.rejections:
        if r.phase == "serving":
            tag = "FAILS while serving" if r.certain else "may fail while serving"
        else:
            tag = "CRASHES at startup" if r.certain else "may crash at startup"
        lines.append(f"  {tag}: {r.message or r.exception}")
        lines.append(f"      at {r.location} in {r.handler}" + (f" when {r.condition}" if r.condition else "")
                     + (f"; needs {', '.join(r.needs)}" if r.needs else ""))
    for dest, w in sorted(startup.writes.items()):
        mark = "" if w.certain else " (uncertain)"
        lines.append(f"  {dest} = {json.dumps(jsonable(w.value), default=str)}{mark}  [changed at startup]")
        lines.append(f"      {w.location} {w.handler}" + (f" if {w.condition}" if w.condition else ""))
    for why in dict.fromkeys(startup.stopped):
        lines.append(f"  startup not analysed: {why}")
    out_of_budget = any("budget" in why for why in startup.stopped)
    # each call the budget cut short is a place not followed (JSON keeps them all); said once above
    places = [p for p in startup.not_followed if not (out_of_budget and "the step budget" in p)]
    if not startup.completed:
        followed = "ends in a raise on every path"
    elif out_of_budget:
        followed = "followed until its step budget ran out (what comes after is not analysed)"
    else:
        followed = "followed to the end"
    other = "other " if out_of_budget else ""
    lines.append(f"  startup: {followed}; {startup.run_dependent} raise(s) depend on the run, not the configuration;"
                 f" {len(places)} {other}place(s) not followed")
    lines.extend(f"      {place}" for place in sorted(places))
    served = startup.serving
    if served:
        spent = f"; step budget spent in {', '.join(served['exhausted'])}" if served.get("exhausted") else ""
        absent = (f"; not built by the startup entry, so not called: {', '.join(served['not_built'])}"
                  if served.get("not_built") else "")
        named = served.get("modes") or []
        maybe = "; NAME?: such batches may come" if any(m.endswith("?") for m in named) else ""
        modes = f" of each forward mode {', '.join(named)}{maybe}" if named else " whose forward mode is not known"
        lines.append(f"  serving: {served.get('methods', 0)} method(s) called with a batch{modes}{spent}{absent}")
    return lines


def raises_on(dest: str, results: list[tuple[str, StartupResult | None]]) -> list[dict[str, Any]]:
    """The startup- and serving-phase raises whose path read `dest`, per GPU label, sorted."""
    out: list[dict[str, Any]] = []
    for label, startup in results:
        for r in (startup.rejections if startup is not None else []):
            if dest in r.reads:
                out.append({"gpu": label, **{k: v for k, v in r.to_json().items() if k != "reads"}})
    return sorted(out, key=lambda r: (r["gpu"], r["phase"], not r["certain"], r["location"]))


def render_raises(dest: str, raises: list[dict[str, Any]]) -> list[str]:
    """Text lines for `explain`: who raises on this setting, under which conditions."""
    if not raises:
        return [f"No startup or serving code that reads {dest} raises for this command."]
    lines = [f"Raises on a path that reads {dest}:"]
    for r in raises:
        certainty = "certain" if r["certain"] else "possible"
        lines.append(f"  [{r['gpu']}] {r['phase']} ({certainty}): {r['message'] or r['exception']}")
        lines.append(f"      at {r['location']} in {r['handler']}" + (f" when {r['condition']}" if r["condition"] else "")
                     + (f"; needs {', '.join(r['needs'])}" if r.get("needs") else ""))
    return lines
