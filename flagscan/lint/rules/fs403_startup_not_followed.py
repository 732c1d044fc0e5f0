"""Startup not followed: flagscan could not run SGLang's startup code for this release.

## What it does
Says where the startup analysis (FS303, FS304, FS104) could not start or could not
go on: the startup entry of rules/startup.toml missing from the release, or the
analysis budget spent before the server would be ready.

## Why is this bad?
Without it a clean lint would read as "starts fine" when the startup code was never
looked at.

## Example
```
--model-path m
```
(on a release whose startup entry flagscan's rule data does not describe.)

## Use instead
Nothing to change in the command; the findings of the other phases still hold:
```
--model-path m
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS403"
NAME = "startup-not-followed"
SEVERITY = Severity.WARNING
MESSAGE = "startup phase not analysed: {why}"
NEEDS = ("startup",)

VALID = (Example("--model-path m", model="tests/data/groundtruth/models/llama-3-8b"),)
INVALID = (Example("--model-path m", sglang="fixtures/trees/lint-next", expect=("FS403",), at=("1:1",)),)


def check(ctx: Context) -> list[Diagnostic]:
    return [Diagnostic(CODE, SEVERITY, MESSAGE.format(why=why), location=ctx.command_location)
            for why in ctx.startup.stopped]
