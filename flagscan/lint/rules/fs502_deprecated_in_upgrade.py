"""Deprecated in upgrade: the flag becomes deprecated in the SGLang release you plan to move to.

## What it does
With an upgrade target (`--upgrade-to REV`), reports every option of the command
that is current at the pinned revision and deprecated in the target, with the
replacement the target names.

## Why is this bad?
Deprecated options are often ignored already, and removed one or two releases
later.

## Example
```
--model-path m --enable-allreduce-fusion
```

## Use instead
The replacement the target release names, e.g.:
```
--model-path m --allreduce-fusion-backend auto
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS502"
NAME = "deprecated-in-upgrade"
SEVERITY = Severity.WARNING
MESSAGE = "{option} is deprecated in SGLang {version}{hint}"
NEEDS = ("upgrade",)

VALID = (Example("--model-path m --tp-size 2", upgrade_to="fixtures/trees/lint-next"),)
INVALID = (Example("--model-path m --enable-allreduce-fusion", upgrade_to="fixtures/trees/lint-next",
                   expect=("FS502",), at=("1:16",)),)


def check(ctx: Context) -> list[Diagnostic]:
    later = ctx.given_upgrade.inventory.by_option()
    now = ctx.inventory.by_option()
    out = []
    for dest, given in ctx.parsed.values.items():
        new, old = later.get(given.option), now.get(given.option)
        if new is None or old is None or not new.deprecated or old.deprecated:
            continue
        hint = f"; use {new.replacement}" if new.replacement else ""
        message = MESSAGE.format(option=given.option, version=ctx.given_upgrade.version, hint=hint)
        out.append(Diagnostic(CODE, SEVERITY, message, given.option, given.location or ctx.command_location,
                              (Evidence(str(new.location), f"{given.option}: {new.action}"),),
                              {"dest": dest, "replacement": new.replacement, "upgrade_to": ctx.given_upgrade.version}))
    return out
