"""Removed in upgrade: the flag does not exist in the SGLang release you plan to move to.

## What it does
With an upgrade target (`--upgrade-to REV` or `upgrade-to` in `[tool.flagscan]`),
reports every option of the command that the target release's parser does not
register.

## Why is this bad?
After the bump the server exits with "unrecognized arguments"; finding it in the
lint of the pull request is cheaper than in a restart loop.

## Example
```
--model-path m --stream-output     (upgrading to a release without --stream-output)
```

## Use instead
```
--model-path m --incremental-output
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS501"
NAME = "removed-in-upgrade"
SEVERITY = Severity.WARNING
MESSAGE = "{option} does not exist in SGLang {version}"
NEEDS = ("upgrade",)

VALID = (Example("--model-path m --incremental-output", upgrade_to="fixtures/trees/lint-next"),)
INVALID = (Example("--model-path m --stream-output", upgrade_to="fixtures/trees/lint-next", expect=("FS501",),
                   at=("1:16",)),)


def check(ctx: Context) -> list[Diagnostic]:
    known = ctx.given_upgrade.inventory.by_option()
    out = []
    for dest, given in ctx.parsed.values.items():
        if given.option and given.option not in known:
            message = MESSAGE.format(option=given.option, version=ctx.given_upgrade.version)
            out.append(Diagnostic(CODE, SEVERITY, message, given.option, given.location or ctx.command_location,
                                  (), {"dest": dest, "upgrade_to": ctx.given_upgrade.version}))
    return out
