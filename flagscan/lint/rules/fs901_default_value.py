"""Default value: the flag sets exactly the value SGLang would use without it.

## What it does
Reports an option whose value equals the default the pinned revision declares for
it (same type and value), e.g. `--tp-size 1`.

## Why is this bad?
It is noise in a long command, and it hides which options were chosen on purpose.
Keep it (and suppress this finding) when you pin the value against a future
default change.

## Example
```
--model-path m --tp-size 1
```

## Use instead
```
--model-path m
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.facts.flags import UnknownValue
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS901"
NAME = "default-value"
SEVERITY = Severity.INFO
MESSAGE = "{option} {value} is the default"

VALID = (Example("--model-path m --tp-size 2"), Example("--model-path m --mem-fraction-static 0.85"))
INVALID = (Example("--model-path m --tp-size 1", expect=("FS901",), at=("1:16",)),
           Example("--model-path m --schedule-policy fcfs", expect=("FS901",), at=("1:16",)))


def check(ctx: Context) -> list[Diagnostic]:
    by_option = ctx.inventory.by_option()
    out = []
    for dest, given in ctx.parsed.values.items():
        flag = by_option.get(given.option)
        if flag is None or flag.deprecated or flag.semantics != "store" or not flag.takes_value:
            continue
        if not _same(given.value, flag.default):
            continue
        message = MESSAGE.format(option=given.option, value=given.value)
        out.append(Diagnostic(CODE, SEVERITY, message, given.option, given.location or ctx.command_location,
                              (Evidence(str(flag.location), f"default={flag.default!r}"),), {"dest": dest}))
    return out


def _same(value: object, default: object) -> bool:
    if isinstance(value, UnknownValue) or isinstance(default, UnknownValue) or default is None:
        return False
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return len(value) == len(default) and all(_same(a, b) for a, b in zip(value, default))
    return type(value) is type(default) and value == default
