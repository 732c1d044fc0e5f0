"""Abbreviated flag: a prefix of an option that argparse expands (or cannot, being ambiguous).

## What it does
Reports an option written as a prefix of a longer one. argparse accepts a unique
prefix when the parser allows abbreviations; an ambiguous prefix is an error.

## Why is this bad?
A prefix that is unique today becomes ambiguous (and the unit stops starting) as
soon as a release adds another option with the same prefix.

## Example
```
--model-path m --chunked-prefill 4096
```

## Use instead
```
--model-path m --chunked-prefill-size 4096
```
"""

from flagscan.diagnostics import Severity
from flagscan.lint.model import Example

CODE = "FS006"
NAME = "abbreviated-flag"
SEVERITY = Severity.INFO
MESSAGE = "{flag} is an abbreviation"

VALID = (Example("--model-path m --chunked-prefill-size 4096"),)
INVALID = (
    Example("--model-path m --chunked-prefill 4096", expect=("FS006",)),
    Example("--model-path m --enable 1", expect=("FS006",)),
)


def check(ctx):
    return ctx.input_diagnostics(CODE)
