"""Analysis stopped: flagscan could not follow part of SGLang's resolution, so what it computes is unknown.

## What it does
Reports each place where flagscan's interpreter gave up on SGLang's code while
resolving the command (a construct it does not model, recursion or a loop deeper
than it follows, a call whose arguments it cannot see, an error inside flagscan),
with the SGLang location and what that leaves unknown.

## Why is this bad?
Every other finding is only as complete as the analysis behind it: a setting written
past the stopping point may differ from what flagscan shows, and a check there may
refuse the command. Saying where analysis stopped keeps a partial answer from
passing for a complete one.

## Example
```
--model-path m --debug-depth 1
```
(the resolution recurses deeper than flagscan follows: `debug_depth` is unknown.)

Where the values it stopped on are not known only because the model was not given
(no `--model-config`, nothing in the HF cache), the places are said once, as the
model's other findings are: giving the model's config.json lets flagscan follow them.

## Use instead
Nothing to change in the command; treat the settings it names as unknown, or check
them with `flagscan verify --local` on a machine with SGLang installed:
```
--model-path m
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS402"
NAME = "analysis-stopped"
SEVERITY = Severity.WARNING
MESSAGE = "analysis stopped at {location}: {construct}; {unknown} is unknown"
NEEDS = ("resolution",)
REPORTS = (OutcomeKind.STOPPED,)

VALID = (Example("--model-path m"),)
INVALID = (Example("--model-path m --debug-depth 1", expect=("FS402",), at=("1:1",)),)


SUMMARY = "analysis stopped at {count} places in SGLang's code; what they compute is unknown (each place is in the evidence)"
# Up to this many places are reported one by one; more are one finding (evidence lists them all).
ONE_BY_ONE = 3


ON_MODEL = ("analysis did not follow {count} place(s) in SGLang's code for want of the model (its config.json "
            "and files); give --model-config to follow them (each place is in the evidence)")


def report(outcome: Outcome) -> Diagnostic:
    stop = outcome.subject  # flagscan.evaluate.interp.giveup.Stop
    data = {"construct": stop.construct, "unknown": stop.what}
    if stop.needs:
        data["needs"] = sorted(stop.needs)
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(location=stop.location, construct=stop.construct,
                                                     unknown=stop.what),
                      None, outcome.location, (Evidence(stop.location, stop.construct),), data)


def check(ctx: Context) -> list[Diagnostic]:
    from flagscan.lint.rules._model import model_missing, on_model, summary

    kept: list[Diagnostic] = []
    model: list[Diagnostic] = []
    missing = model_missing(ctx)
    for outcome in ctx.outcomes(REPORTS):
        needs = outcome.subject.needs
        # a stop on values that only the model would make known (not one flagscan cannot follow)
        (model if missing and needs and on_model(needs) else kept).append(report(outcome))
    out = kept if len(kept) <= ONE_BY_ONE else [summary(ctx, CODE, SEVERITY, SUMMARY, kept, needs=())]
    if model:
        out.append(summary(ctx, CODE, SEVERITY, ON_MODEL, model))
    return out
