"""Overridden value: SGLang replaces a value you set explicitly.

## What it does
Reports a flag you gave whose value SGLang's resolution changes at start-up, with
the handler, its condition and the message SGLang logs.

## Why is this bad?
The command line says one thing and the server runs another; reviewers trust the
file.

## Example
```
--model-path m --tp-size 2 --enable-dp-attention --schedule-policy lpm
```
(`--enable-dp-attention` forces `schedule_policy` back to `fcfs`.)

## Use instead
```
--model-path m --tp-size 2 --enable-dp-attention
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.evaluate.resolution.results import jsonable
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._resolution import causes, show, why

CODE = "FS102"
NAME = "overridden-value"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang overrides {dest}"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.OVERRIDDEN,)

VALID = (Example("--model-path m --tp-size 2 --enable-dp-attention"),)
INVALID = (Example("--model-path m --tp-size 2 --enable-dp-attention --schedule-policy lpm", expect=("FS102",),
                   at=("1:50",)),)


def report(outcome: Outcome) -> Diagnostic:
    s = outcome.setting
    message = f"SGLang overrides {s.dest}={show(s.user_value)} with {show(s.value)} ({why(s)})"
    return Diagnostic(CODE, SEVERITY, message, s.dest, outcome.location, causes(s),
                      {"value": jsonable(s.value), "user_value": jsonable(s.user_value)})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(o) for o in ctx.outcomes(REPORTS)]
