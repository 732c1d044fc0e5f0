"""evaluate: what the startup phase found (its raises, the settings it wrote, where it stopped).

Kept apart from the startup runner (flagscan/evaluate/startup/run.py): a warm run reads a
cached result back and renders it without importing the interpreter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class StartupRaise:
    location: str
    handler: str
    exception: str
    message: str
    condition: str
    certain: bool
    needs: tuple[str, ...]
    entry: str
    phase: str = "startup"
    reads: tuple[str, ...] = ()  # record attributes its path read, first read first (settings among them)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"location": self.location, "handler": self.handler, "condition": self.condition,
                                "message": self.message, "certain": self.certain, "exception": self.exception,
                                "phase": self.phase, "entry": self.entry}
        if self.needs:
            data["needs"] = list(self.needs)
        if self.reads:
            data["reads"] = list(self.reads)
        return data


@dataclass(frozen=True, slots=True)
class StartupWrite:
    dest: str
    value: Any
    location: str
    handler: str
    condition: str
    certain: bool


@dataclass(slots=True)
class StartupResult:
    rejections: list[StartupRaise] = field(default_factory=list)
    writes: dict[str, StartupWrite] = field(default_factory=dict)
    completed: bool = False        # the entry returned on at least one path
    reached: bool = True           # False when the resolution never completes (it rejects the command)
    stopped: list[str] = field(default_factory=list)  # where the analysis could not go on, and why
    run_dependent: int = 0         # possible raises that depend on the run, not on the configuration
    steps: int = 0
    not_followed: list[str] = field(default_factory=list)  # code the interpreter could not follow (give-ups)
    serving: dict[str, Any] = field(default_factory=dict)  # the serving phase: methods called, steps, budgets spent
