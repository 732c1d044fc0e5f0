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

from flagscan.diagnostics import Evidence, Severity
from flagscan.lint.model import Example

CODE = "FS002"
NAME = "deprecated-flag"
SEVERITY = Severity.WARNING
MESSAGE = "{flag} is deprecated"
FIXABLE = True

VALID = (Example("--model-path m --incremental-output"),)
INVALID = (
    Example("--model-path m --stream-output", expect=("FS002",)),
    Example("--model-path m --hybrid-ratio", expect=("FS002",)),
)


def check(ctx):
    out = []
    for d in ctx.input_diagnostics(CODE):
        flag = ctx.flag(d.flag)
        if flag is not None and not d.evidence:
            d = _with_evidence(d, Evidence(str(flag.location), f"{d.flag}: {flag.action}"))
        out.append(d)
    return out


def _with_evidence(d, evidence):
    from dataclasses import replace

    return replace(d, evidence=(*d.evidence, evidence))
