"""Knock-on setting: SGLang changes a setting you did not give, because of something you did give.

## What it does
Runs SGLang's argument resolution for the command on the given GPU (and model) and
reports every setting whose final value differs from its default because a handler
reacted to a flag you gave, the GPU or the model (the data flow of its condition;
a default filled in regardless of input is FS103), with the handler's source line,
its condition and the message SGLang logs. The finding points at the flag the
condition names (e.g. `--speculative-algorithm`), not at the last flag you added.

## Why is this bad?
The effective configuration is not the one in the file: a throughput or memory
change after adding an unrelated flag is usually a knock-on, found only by reading
`server_args.py`.

## Example
```
--model-path m --speculative-algorithm EAGLE
```
(`max_running_requests` becomes 48 and `disable_piecewise_cuda_graph` True.)

## Use instead
Keep the command, and pin the settings whose knock-on value you do not want:
```
--model-path m --speculative-algorithm EAGLE --max-running-requests 128
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._resolution import causes, changed_data, show, why

CODE = "FS101"
NAME = "knock-on-setting"
SEVERITY = Severity.INFO
MESSAGE = "knock-on: {dest} becomes {value}"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.KNOCK_ON,)

VALID = (Example("--model-path m"), Example("--model-path m --speculative-algorithm EAGLE --max-running-requests 128 "
                                            "--disable-piecewise-cuda-graph"))
INVALID = (Example("--model-path m --speculative-algorithm EAGLE", expect=("FS101",), at=("1:16",)),)


def report(outcome: Outcome) -> Diagnostic:
    s = outcome.setting
    link = "because" if s.because else "by"  # untraced: "by SGLang's resolution (...)"
    message = f"knock-on: {s.dest} becomes {show(s.value)} (default {show(s.default)}) {link} {why(s)}"
    return Diagnostic(CODE, SEVERITY, message, s.dest, outcome.location, causes(s), changed_data(outcome))


def check(ctx: Context) -> list[Diagnostic]:
    return [report(o) for o in ctx.outcomes(REPORTS)]
