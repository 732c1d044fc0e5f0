"""Possible rejection: SGLang may refuse to start, depending on facts flagscan was not given.

## What it does
Reports a start-up check that fires on some paths of the resolution: its condition
depends on something unknown (free GPU memory, an environment variable, the model's
config when no `--model-config` is given). The finding lists what is needed.

## Why is this bad?
The same unit can start on one node and fail on another.

## Example
```
--model-path m --mem-fraction-static 0.97
```

## Use instead
```
--model-path m --mem-fraction-static 0.9
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._settings import at_named_flag

CODE = "FS302"
NAME = "possible-rejection"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang may refuse to start: {message}"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.MAY_REJECT,)

VALID = (Example("--model-path m --mem-fraction-static 0.9"),)
INVALID = (Example("--model-path m --mem-fraction-static 0.97", expect=("FS302",), at=("1:1",)),)


MODEL_MESSAGE = ("{count} start-up check(s) depend on the model (its config.json and files) or on what SGLang "
                 "derives from it; give --model-config to decide them")


def report(outcome: Outcome) -> Diagnostic:
    r = outcome.rejection
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(message=r.message), None, outcome.location,
                      (Evidence(r.location, r.condition),),
                      {"exception": r.exception, "needs": r.needs, "depends": r.depends})


def check(ctx: Context) -> list[Diagnostic]:
    from flagscan.lint.rules._model import split, summary

    found = [report(o) for o in ctx.outcomes(REPORTS)]
    kept, model = split(ctx, found, lambda d: d.data.get("depends", []))
    out = [at_named_flag(ctx, d) for d in kept]
    if model:
        out.append(summary(ctx, CODE, SEVERITY, MODEL_MESSAGE, model))
    return out
