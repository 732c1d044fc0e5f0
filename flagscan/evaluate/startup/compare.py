"""evaluate: the startup and serving rejections of one launch command at two revisions (for `diff`).

Each revision parses the command with its own parser (the caller's `values_for`: parsing
is the inputs stage's), resolves it and runs its startup phase for the same scenario; a rejection is the same across revisions when its phase,
exception and message agree (its file and line move between releases). A revision whose
resolution certainly refuses the command does not reach startup: its side says so
(`reached: false`) instead of listing nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from flagscan.evaluate.startup.results import StartupRaise, StartupResult
from flagscan.facts.flags import Inventory

if TYPE_CHECKING:
    from flagscan.evaluate import Scenario


class Revision(Protocol):
    """What a revision gives here (flagscan.lint.Target, a stage above this one, is one)."""

    @property
    def root(self) -> Path: ...
    @property
    def cache_dir(self) -> Path | None: ...
    @property
    def inventory(self) -> Inventory: ...


R = TypeVar("R", bound=Revision)


@dataclass(frozen=True, slots=True)
class StartupChange:
    path: str
    line: int
    gpu: str
    added: tuple[StartupRaise, ...]      # at the new revision only
    removed: tuple[StartupRaise, ...]    # at the old revision only
    state: tuple[str, str]      # at (old, new): "analysed", "not reached" (resolution refuses), "not followed"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "gpu": self.gpu,
                "added": [r.to_json() for r in self.added], "removed": [r.to_json() for r in self.removed],
                "startup": {"old": self.state[0], "new": self.state[1]}}


def _key(r: StartupRaise) -> tuple[str, str, str]:
    return (r.phase, r.exception, r.message)


def startup_of(target: Revision, values: dict[str, Any], scenario: Scenario) -> tuple[str, StartupResult | None]:
    """(state, StartupResult or None) of a command's parsed `values` at `target` (a flagscan.lint.Target)."""
    from flagscan.evaluate import predict
    from flagscan.evaluate.startup.predict import predict_startup

    resolution = predict(target.root, target.cache_dir, target.inventory, values, scenario)
    if any(getattr(r, "certain", False) for r in resolution.rejections):
        return "not reached", None
    result = predict_startup(target.root, target.cache_dir, target.inventory, values, scenario)
    if not result.reached:
        return "not reached", None
    return ("not followed", None) if result.stopped else ("analysed", result)


def compare_command(old: R, new: R, values_for: Callable[[R], dict[str, Any]],
                    scenario_for: Callable[[dict[str, Any]], Scenario], where: tuple[str, int], label: str
                    ) -> StartupChange:
    """`values_for(target)`: the command parsed by that revision's parser (dest -> value);
    `scenario_for(values)`: the Scenario for them (the model may come from them)."""
    sides = []
    for target in (old, new):
        values = values_for(target)
        sides.append(startup_of(target, values, scenario_for(values)))
    (was_state, before), (now_state, after) = sides
    was = {_key(r): r for r in (before.rejections if before else [])}
    now = {_key(r): r for r in (after.rejections if after else [])}
    # added: new at a revision that reaches startup, where the old one reached it too or refused
    # the command earlier; removed: only when both were analysed (else it is not known)
    added = tuple(now[k] for k in sorted(set(now) - set(was))) if after and was_state != "not followed" else ()
    removed = tuple(was[k] for k in sorted(set(was) - set(now))) if before and after else ()
    return StartupChange(where[0], where[1], label, added, removed, (was_state, now_state))
