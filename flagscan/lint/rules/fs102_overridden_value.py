"""Overridden value: SGLang replaces a value you set explicitly.

## What it does
Reports a flag you gave whose value SGLang's resolution changes at start-up, with
the handler, its condition and the message SGLang logs.

## Why is this bad?
The command line says one thing and the server runs another; reviewers trust the
file.

## Example
```
--model-path m --tp-size 2 --enable-dp-attention --schedule-policy lpm
```
(`--enable-dp-attention` forces `schedule_policy` back to `fcfs`.)

## Use instead
```
--model-path m --tp-size 2 --enable-dp-attention
```
"""

from flagscan.diagnostics import Severity
from flagscan.lint.model import Example

CODE = "FS102"
NAME = "overridden-value"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang overrides {dest}"
NEEDS = ("resolution",)

VALID = (Example("--model-path m --tp-size 2 --enable-dp-attention"),)
INVALID = (Example("--model-path m --tp-size 2 --enable-dp-attention --schedule-policy lpm", expect=("FS102",)),)


def check(ctx):
    return [d for d in ctx.knock_on if d.code == CODE]
