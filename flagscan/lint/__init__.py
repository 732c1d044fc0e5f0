"""lint: launch files -> per-command findings from one-module lint rules (FSnnn)."""

from flagscan.lint.context import Context, Target, Upgrade
from flagscan.lint.engine import LintOptions, lint_file, lint_files, summary
from flagscan.lint.model import CommandResult, Example, FileResult, Rule
from flagscan.lint.registry import all_rules, by_code, find
from flagscan.lint.select import Selection, SelectionError

__all__ = [
    "CommandResult", "Context", "Example", "FileResult", "LintOptions", "Rule", "Selection",
    "SelectionError", "Target", "Upgrade", "all_rules", "by_code", "find", "lint_file", "lint_files", "summary",
]
