"""Filled-in default: SGLang chooses a value for an option left unset (off by default).

## What it does
Reports settings that SGLang's resolution fills in without reacting to anything:
the steps that write them test no flag the user gave and no hardware or model fact,
only the setting itself or other defaults (`if self.chunked_prefill_size is None:
...`, `if self.buffer_size is None and (x := self.eplb_iterations) is not None`), or
the value is the field's declared fallback. Select it with `--select FS103` to see
the complete effective configuration.

## Why is this bad?
It is not bad: it documents what "unset" means at the pinned revision, which can
change between releases.

## Example
```
--model-path m
```
(`chunked_prefill_size` becomes 8192.)

## Use instead
Pin the value if the release's choice matters to you:
```
--model-path m --chunked-prefill-size 8192
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._resolution import causes, changed_data, show

CODE = "FS103"
NAME = "filled-in-default"
SEVERITY = Severity.INFO
MESSAGE = "SGLang fills in {dest} = {value}"
NEEDS = ("resolution",)
DEFAULT = False
REPORTS = (OutcomeKind.FILLED_IN,)

VALID = (Example("--model-path m --chunked-prefill-size 4096"),)
INVALID = (Example("--model-path m", expect=("FS103",), at=("1:1",)),)


def report(outcome: Outcome) -> Diagnostic:
    s = outcome.setting
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(dest=s.dest, value=show(s.value)), s.dest, outcome.location,
                      causes(s), changed_data(outcome))


def check(ctx: Context) -> list[Diagnostic]:
    return [report(o) for o in ctx.outcomes(REPORTS)]
