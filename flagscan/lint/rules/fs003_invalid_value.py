"""Invalid value: the value does not convert to the flag's type or is not one of its choices.

## What it does
Converts each value with the flag's own type and checks it against the choices the
pinned revision declares, as argparse will at start-up. Also reports a missing
value and a `--config` spelling SGLang does not merge.

## Why is this bad?
argparse exits with "invalid choice" or "invalid int value" and the server never
starts.

## Example
```
--model-path m --attention-backend fa4
```

## Use instead
```
--model-path m --attention-backend triton
```
"""

from dataclasses import replace

from flagscan.diagnostics import Evidence, Severity
from flagscan.lint.model import Example

CODE = "FS003"
NAME = "invalid-value"
SEVERITY = Severity.ERROR
MESSAGE = "{flag}: invalid value"

VALID = (Example("--model-path m --attention-backend triton --tp-size 2"),)
INVALID = (
    Example("--model-path m --attention-backend fa4", expect=("FS003",)),
    Example("--model-path m --tp-size two", expect=("FS003",)),
)


def check(ctx):
    out = []
    for d in ctx.input_diagnostics(CODE):
        flag = ctx.flag(d.flag)
        if flag is not None:
            d = replace(d, evidence=(*d.evidence, Evidence(str(flag.location), f"{d.flag}: type={flag.type}")))
        out.append(d)
    return out
