"""Duplicate flag: the same option is given twice and only the last one counts.

## What it does
Reports a non-accumulating option that appears more than once in one command.

## Why is this bad?
argparse silently keeps the last value; an edit near the top of a long unit is
overridden by a stale line further down.

## Example
```
--model-path m --tp-size 2 --tp-size 4
```

## Use instead
```
--model-path m --tp-size 4
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS004"
NAME = "duplicate-flag"
SEVERITY = Severity.WARNING
MESSAGE = "{flag} is given more than once"
REPORTS = (ProblemKind.DUPLICATE_OPTION,)

VALID = (Example("--model-path m --tp-size 4"),)
INVALID = (Example("--model-path m --tp-size 2 --tp-size 4", expect=("FS004",), at=("1:28",)),)


def report(problem: Problem) -> Diagnostic:
    return Diagnostic(CODE, SEVERITY, f"{problem.option} is given more than once; the last one wins", problem.option,
                      problem.location, (), {"first": problem.data.get("first")})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
