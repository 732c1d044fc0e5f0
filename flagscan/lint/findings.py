"""lint: the rules' own wording of the earlier stages' records, for the commands that show
them outside a lint run (`flagscan args`, `flagscan resolve`).

Each record goes to the one rule that reports its kind (`Rule.report`), so a command shows
the code, severity and message the rule declares; context a lint run adds (SGLang evidence,
relocation to the flag a condition names, summaries) is the rule's `check()`'s alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flagscan.diagnostics import Diagnostic, Problem
from flagscan.inputs.argv import FlagValue, ParsedCommand
from flagscan.inputs.model import LaunchCommand
from flagscan.lint.registry import reporter


def diagnostic(record: Any) -> Diagnostic:
    """A Problem or an Outcome, worded by the rule that reports its kind."""
    rule = reporter(record.kind)
    assert rule.report is not None
    return rule.report(record)


def input_diagnostics(parsed: ParsedCommand) -> list[Diagnostic]:
    return [diagnostic(p) for p in parsed.problems]


def resolution_diagnostics(resolution: Any, parsed: ParsedCommand | CheckedCommand) -> list[Diagnostic]:
    """What the resolution did to the command (rejections, stops, changed settings), in order
    (`parsed`: the command as parsed, with or without its input findings)."""
    from flagscan.evaluate.resolution.diagnose import outcomes

    return [diagnostic(o) for o in outcomes(resolution, parsed)]


@dataclass(frozen=True, slots=True)
class CheckedCommand:
    """A parsed command and its input findings, as the `args` and `resolve` reports show it."""

    command: LaunchCommand
    values: dict[str, FlagValue] = field(hash=False)
    problems: tuple[Problem, ...]
    diagnostics: tuple[Diagnostic, ...]


def checked(parsed: ParsedCommand) -> CheckedCommand:
    return CheckedCommand(parsed.command, parsed.values, parsed.problems, tuple(input_diagnostics(parsed)))
