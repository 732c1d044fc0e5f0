"""Possible rejection: SGLang may refuse to start, depending on facts flagscan was not given.

## What it does
Reports a start-up check that fires on some paths of the resolution: its condition
depends on something unknown (free GPU memory, an environment variable, the model's
config when no `--model-config` is given). The finding lists what is needed.

## Why is this bad?
The same unit can start on one node and fail on another.

## Example
```
--model-path m --mem-fraction-static 0.97
```

## Use instead
```
--model-path m --mem-fraction-static 0.9
```
"""

from flagscan.diagnostics import Severity
from flagscan.lint.model import Example
from flagscan.lint.rules._settings import at_named_flag

CODE = "FS302"
NAME = "possible-rejection"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang may refuse to start: {message}"
NEEDS = ("resolution",)

VALID = (Example("--model-path m --mem-fraction-static 0.9"),)
INVALID = (Example("--model-path m --mem-fraction-static 0.97", expect=("FS302",)),)


def check(ctx):
    return [at_named_flag(ctx, d) for d in ctx.knock_on if d.code == CODE]
