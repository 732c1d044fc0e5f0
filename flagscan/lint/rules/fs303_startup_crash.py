"""Startup crash: the settings pass SGLang's argument checks, then its startup code raises.

## What it does
Runs SGLang's startup code (the TP worker that builds the model runner, the model
class of the architecture, the attention backend, the communicators) abstractly on
the resolved settings, the GPU and the model, and reports a `raise`/`assert` there
that certainly fires, with its source line, condition and message.

## Why is this bad?
The command is accepted, the process starts loading, and then the scheduler dies
before the server serves; under systemd it restart-loops, each time after the model
has started loading.

## Example
```
--model-path m --attention-backend flashinfer
```
(on an SM120 GPU, the fixture's flashinfer backend constructor refuses the GPU.)

## Use instead
```
--model-path m --attention-backend triton
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._startup import finding

CODE = "FS303"
NAME = "startup-crash"
SEVERITY = Severity.ERROR
MESSAGE = "SGLang crashes while starting: {message}"
NEEDS = ("startup",)

_LLAMA = "tests/data/groundtruth/models/llama-3-8b"

VALID = (
    Example("--model-path m --attention-backend flashinfer", model=_LLAMA),
    Example("--model-path m --attention-backend triton", gpu="rtx-pro-6000", model=_LLAMA),
)
INVALID = (
    Example("--model-path m --attention-backend flashinfer", gpu="rtx-pro-6000", model=_LLAMA, expect=("FS303",),
            at=("1:1",)),
    Example("--model-path m", model="fixtures/models/unregistered", expect=("FS303",), at=("1:1",)),
    Example("--model-path m --speculative-algorithm NEXTN", model="fixtures/models/tiny-moe", expect=("FS303",),
            at=("1:1",)),
)


def check(ctx: Context) -> list[Diagnostic]:
    return [finding(ctx, CODE, SEVERITY, MESSAGE.format(message=r.message or r.exception), r)
            for r in ctx.startup.rejections if r.certain and r.phase != "serving"]
