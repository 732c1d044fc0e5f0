"""diffing: how each service file's launch commands fare after the bump, per GPU (the FS5xx rules)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flagscan.diagnostics import Diagnostic
from flagscan.diffing.model import UnitChange
from flagscan.lint import CommandResult, FileResult, LintOptions, Selection, Target, Upgrade, lint_file

UPGRADE_CODES = ("FS5", "FS010")


def diff_units(old: Target, new: Target, services: Sequence[str], gpus: Sequence[Any],
               model: Callable[[str | None], Any] | None, env: dict[str, str]) -> list[UnitChange]:
    upgrade = Upgrade(new.inventory, new.version, new.root, new.cache_dir)
    out: list[UnitChange] = []
    for gpu in gpus or (None,):
        options = LintOptions(old, gpu, False, env, model, Selection(select=UPGRADE_CODES), None, upgrade)
        for path in services:
            result = lint_file(path, options)
            label = (gpu.table_entry or gpu.sm) if gpu is not None else "no GPU"
            if not result.commands:
                out.append(UnitChange(path, 1, label, result.diagnostics, ()))
            for command in result.commands:
                mine = tuple(d for d in result.diagnostics if _within(d, command, result))
                settings = tuple({"dest": d.flag, "old": d.data.get("old"), "new": d.data.get("new")}
                                 for d in mine if d.code == "FS503")
                out.append(UnitChange(path, command.line, label, mine, settings, command.notes))
    return out


def _within(d: Diagnostic, command: CommandResult, result: FileResult) -> bool:
    """Whether a diagnostic belongs to `command` (the file's commands are ordered by line)."""
    if d.location is None or len(result.commands) == 1:
        return True
    starts = sorted(c.line for c in result.commands)
    following = [s for s in starts if s > command.line]
    return command.line <= d.location.line < (following[0] if following else 10 ** 9)
