"""Rejected after upgrade: the target release refuses a command the pinned release accepts.

## What it does
With an upgrade target and a GPU, resolves the command at the target and reports
each start-up rejection that certainly fires there and not at the pinned revision.

## Why is this bad?
The upgraded server does not start; under systemd it restart-loops.

## Example
```
--model-path m --enable-dp-attention --tp-size 1 --allreduce-fusion-backend flashinfer   (at 0.5.91)
```

## Use instead
```
--model-path m --enable-dp-attention --tp-size 2 --allreduce-fusion-backend flashinfer
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS504"
NAME = "rejected-after-upgrade"
SEVERITY = Severity.ERROR
MESSAGE = "SGLang {version} refuses to start: {message}"
NEEDS = ("resolution", "upgrade", "upgrade-resolution")

VALID = (Example("--model-path m --attention-backend triton", upgrade_to="fixtures/trees/lint-next"),)
INVALID = (Example("--model-path m --enable-dp-attention --allreduce-fusion-backend flashinfer",
                   upgrade_to="fixtures/trees/lint-next", expect=("FS504",), at=("1:1",)),)


def check(ctx: Context) -> list[Diagnostic]:
    _parsed, after = ctx.after_upgrade
    before = {r.message for r in ctx.resolution.rejections if r.certain}
    out = []
    for r in after.rejections:
        if r.certain and r.message not in before:
            out.append(Diagnostic(CODE, SEVERITY, MESSAGE.format(version=ctx.given_upgrade.version, message=r.message),
                                  None, ctx.command_location, (Evidence(r.location, r.condition),),
                                  {"upgrade_to": ctx.given_upgrade.version}))
    return out
