"""Abbreviated flag: a prefix of an option that argparse expands to the full option.

## What it does
Reports an option written as a unique prefix of a longer one, which argparse accepts
when the parser allows abbreviations (an ambiguous prefix, which argparse refuses,
is FS008).

## Why is this bad?
A prefix that is unique today becomes ambiguous (and the unit stops starting) as
soon as a release adds another option with the same prefix.

## Example
```
--model-path m --chunked-prefill 4096
```

## Use instead
```
--model-path m --chunked-prefill-size 4096
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS006"
NAME = "abbreviated-flag"
SEVERITY = Severity.INFO
MESSAGE = "{flag} is an abbreviation"
REPORTS = (ProblemKind.ABBREVIATED_OPTION,)

VALID = (Example("--model-path m --chunked-prefill-size 4096"),)
INVALID = (Example("--model-path m --chunked-prefill 4096", expect=("FS006",), at=("1:16",)),)


def report(problem: Problem) -> Diagnostic:
    written, resolved = problem.data["abbreviation"], problem.data["resolved"]
    return Diagnostic(CODE, SEVERITY, f"{written} is an abbreviation of {resolved}", problem.option, problem.location,
                      (), {"abbreviation": written, "resolved": resolved})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
