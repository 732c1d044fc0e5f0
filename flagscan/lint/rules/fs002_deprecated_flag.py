"""Deprecated flag: the option still parses but SGLang marks it deprecated, often as a no-op.

## What it does
Reports an option whose argparse action is one of SGLang's deprecation actions,
naming the replacement SGLang points to. `--fix` rewrites it when the replacement is
an exact flag of the same shape (both switches, or both taking the value).

## Why is this bad?
Deprecated options are removed in a later release (the unit then stops starting),
and some are already ignored: the setting you think you made is not made.

## Example
```
--model-path m --stream-output
```

## Use instead
```
--model-path m --incremental-output
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS002"
NAME = "deprecated-flag"
SEVERITY = Severity.WARNING
MESSAGE = "{flag} is deprecated"
FIXABLE = True
REPORTS = (ProblemKind.DEPRECATED_OPTION,)

VALID = (Example("--model-path m --incremental-output"),)
INVALID = (
    Example("--model-path m --stream-output", expect=("FS002",), at=("1:16",),
            fixed="--model-path m --incremental-output"),
    Example("--model-path m --hybrid-ratio", expect=("FS002",), at=("1:16",), fixed="--model-path m --hybrid-ratio"),
)


def report(problem: Problem) -> Diagnostic:
    replacement = problem.data.get("replacement")
    hint = f"; use {replacement}" if replacement else ""
    effect = " and has no effect" if problem.data.get("ignored") else ""
    return Diagnostic(CODE, SEVERITY, f"{problem.option} is deprecated{effect}{hint}", problem.option,
                      problem.location, (), {"replacement": replacement})


def check(ctx: Context) -> list[Diagnostic]:
    out = []
    for problem in ctx.problems(REPORTS):
        d = report(problem)
        flag = ctx.flag(d.flag)
        if flag is not None:
            d = Diagnostic(d.code, d.severity, d.message, d.flag, d.location,
                           (Evidence(str(flag.location), f"{d.flag}: {flag.action}"),), d.data)
        out.append(d)
    return out
