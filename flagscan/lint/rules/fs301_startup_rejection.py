"""Startup rejection: SGLang will refuse to start with this command on this GPU.

## What it does
Runs SGLang's argument resolution and reports a `raise`/`assert` that certainly
fires for this command, GPU and model, with the check's source line, condition and
message.

## Why is this bad?
The server exits during start-up; under systemd it restart-loops.

## Example
```
--model-path m --enable-dp-attention
```
(`--enable-dp-attention` needs `--tp-size` greater than 1.)

## Use instead
```
--model-path m --enable-dp-attention --tp-size 2
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._settings import at_named_flag

CODE = "FS301"
NAME = "startup-rejection"
SEVERITY = Severity.ERROR
MESSAGE = "SGLang refuses to start: {message}"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.REJECTED,)

VALID = (
    Example("--model-path m --enable-dp-attention --tp-size 2"),
    Example("--model-path m --attention-backend fa3", gpu="h200"),
)
INVALID = (
    Example("--model-path m --enable-dp-attention", expect=("FS301",), at=("1:16",)),
    Example("--model-path m --attention-backend fa3", gpu="rtx-pro-6000", expect=("FS301",), at=("1:16",)),
)


def report(outcome: Outcome) -> Diagnostic:
    r = outcome.rejection
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(message=r.message), None, outcome.location,
                      (Evidence(r.location, r.condition),),
                      {"exception": r.exception, "needs": r.needs, "depends": r.depends})


def check(ctx: Context) -> list[Diagnostic]:
    return [at_named_flag(ctx, report(o)) for o in ctx.outcomes(REPORTS)]
