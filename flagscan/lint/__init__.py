"""lint: launch files -> per-command findings from one-module lint rules (FSnnn).

The names below load on first use (PEP 562), so that a command needing one lint module
(`resolve` reads `lint.findings`) does not import the whole linter."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flagscan.lint.context import Context, Target, Upgrade
    from flagscan.lint.engine import LintOptions, lint_file, lint_files, summary
    from flagscan.lint.model import CommandResult, Example, FileResult, Rule
    from flagscan.lint.registry import all_rules, by_code, find
    from flagscan.lint.select import Selection, SelectionError

_HOME = {
    "Context": "context", "Target": "context", "Upgrade": "context",
    "LintOptions": "engine", "lint_file": "engine", "lint_files": "engine", "summary": "engine",
    "CommandResult": "model", "Example": "model", "FileResult": "model", "Rule": "model",
    "all_rules": "registry", "by_code": "registry", "find": "registry",
    "Selection": "select", "SelectionError": "select",
}

__all__ = [
    "CommandResult", "Context", "Example", "FileResult", "LintOptions", "Rule", "Selection",
    "SelectionError", "Target", "Upgrade", "all_rules", "by_code", "find", "lint_file", "lint_files", "summary",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
