"""Needs information: a setting's value depends on facts flagscan was not given.

## What it does
Reports a setting SGLang's resolution may change, where the change depends on
run-time facts (host CPU count, free memory, model config keys, environment
variables). The finding names what is needed; give `--model-config` or `--env` to
decide it.

## Why is this bad?
The effective value differs between nodes or models; a reviewer cannot tell which
one the server will run with.

## Example
```
--model-path m
```
(`tokenizer_worker_num` comes from the host's CPU count.)

## Use instead
```
--model-path m --tokenizer-worker-num 4
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._resolution import causes, why

CODE = "FS401"
NAME = "needs-information"
SEVERITY = Severity.INFO
MESSAGE = "{dest} may be changed by SGLang"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.MAY_CHANGE,)

VALID = (Example("--model-path m --tokenizer-worker-num 4"),)
INVALID = (Example("--model-path m", expect=("FS401",), at=("1:1",)),)


MODEL_MESSAGE = ("{count} setting(s) SGLang may change depend on the model (its config.json and files) or on what "
                 "SGLang derives from it; give --model-config to decide them")


def report(outcome: Outcome) -> Diagnostic:
    s = outcome.setting
    message = f"{s.dest} may be changed by SGLang ({why(s)}); needs {', '.join(s.needs) or 'run-time facts'}"
    return Diagnostic(CODE, SEVERITY, message, s.dest, outcome.location, causes(s), {"needs": s.needs})


def check(ctx: Context) -> list[Diagnostic]:
    from flagscan.lint.rules._model import split, summary

    kept, model = split(ctx, [report(o) for o in ctx.outcomes(REPORTS)], lambda d: d.data.get("needs", []))
    return kept + ([summary(ctx, CODE, SEVERITY, MODEL_MESSAGE, model)] if model else [])
