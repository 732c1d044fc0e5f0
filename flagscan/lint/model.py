"""lint: the records a lint rule is made of (its examples, its spec) and what a run returns."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from flagscan.lint.context import Context

CODE = re.compile(r"^FS\d{3}$")
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")
FIXTURE_TREE = "fixtures/trees/lint"


@dataclass(frozen=True, slots=True)
class Example:
    """One launch command a rule is checked on.

    `command` is the server arguments (or a full `python -m sglang.launch_server ...`
    line) as a shell would split them; `gpu` a `--gpu` spec; `sglang` a revision spec
    (a fixture tree path relative to the repository, or a release such as ``0.5.10``,
    which makes the example a `real` test); `model` a model config path relative to the
    repository. `expect` lists the codes the run must report (INVALID) — a VALID
    example must not report the rule's own code. `at` is where the rule's own findings
    are, as ``"line:column"`` of the one-line command file (1-based; every INVALID
    example says). `fixed` is the command after `--fix` (Fixit's expected_replacement;
    every INVALID example of a fixable rule says, the command itself when nothing is
    rewritten).
    """

    command: str
    gpu: str | None = "h200"
    sglang: str = FIXTURE_TREE
    model: str | None = None
    expect: tuple[str, ...] = ()
    upgrade_to: str | None = None
    at: tuple[str, ...] = ()
    fixed: str | None = None

    @property
    def real(self) -> bool:
        return "/" not in self.sglang


@dataclass(frozen=True, slots=True)
class Rule:
    """A lint rule: one module under flagscan/lint/rules/ (see rules/lint.toml for families).

    `reports`: the kinds of neutral record (a `flagscan.diagnostics.ProblemKind` of the input
    stage, a `flagscan.evaluate.resolution.diagnose.OutcomeKind` of the resolution) this rule words,
    each through `report(record) -> Diagnostic`; every kind has exactly one such rule."""

    code: str
    name: str
    severity: Severity
    message: str
    doc: str
    check: Callable[[Context], Iterable[Diagnostic]]
    valid: tuple[Example, ...]
    invalid: tuple[Example, ...]
    default: bool = True
    needs: frozenset[str] = frozenset()
    fixable: bool = False
    module: str = ""
    reports: frozenset[str] = frozenset()
    report: Callable[[Any], Diagnostic] | None = None

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0].strip() if self.doc.strip() else self.name

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        return cls(
            code=module.CODE,
            name=module.NAME,
            severity=module.SEVERITY,
            message=module.MESSAGE,
            doc=module.__doc__ or "",
            check=module.check,
            valid=tuple(getattr(module, "VALID", ())),
            invalid=tuple(getattr(module, "INVALID", ())),
            default=getattr(module, "DEFAULT", True),
            needs=frozenset(getattr(module, "NEEDS", ())),
            fixable=getattr(module, "FIXABLE", False),
            module=module.__name__,
            reports=frozenset(str(getattr(k, "value", k)) for k in getattr(module, "REPORTS", ())),
            report=getattr(module, "report", None),
        )


@dataclass(frozen=True, slots=True)
class CommandResult:
    """One launch command of a file and what the rules reported on it."""

    path: str
    line: int
    launcher: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileResult:
    """A linted file: its commands, the diagnostics left after suppressions, edits for --fix."""

    path: str
    commands: tuple[CommandResult, ...]
    diagnostics: tuple[Diagnostic, ...]
    suppressed: int = 0
    fixed_text: str | None = None
    fix_notes: tuple[str, ...] = ()
    text: str = field(default="", repr=False)


def worst(diagnostics: Iterable[Diagnostic]) -> int:
    return max((d.severity.rank for d in diagnostics), default=0)
