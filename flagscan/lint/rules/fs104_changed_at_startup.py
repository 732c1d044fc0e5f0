"""Changed at startup: SGLang's startup code changes a setting after argument resolution.

## What it does
Reports a setting that SGLang's startup code (the model runner's model-specific
adjustments, the model class) writes after the argument resolution, with the value
the server then runs with, the code that wrote it and its condition.

## Why is this bad?
The server runs with a value that neither the command nor the resolved arguments
show; `--chunked-prefill-size` or an attention backend the operator set can be
replaced without a word in the launch log.

## Example
```
--model-path m --speculative-algorithm EAGLE --chunked-prefill-size 8192
```
(the fixture's model runner sets chunked prefill to 4096 for speculative decoding.)

## Use instead
```
--model-path m --speculative-algorithm EAGLE --chunked-prefill-size 4096
```
"""

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._settings import at_named_flag

CODE = "FS104"
NAME = "changed-at-startup"
SEVERITY = Severity.INFO
MESSAGE = "{dest} becomes {value} at startup ({handler}: {condition})"
NEEDS = ("startup",)

_LLAMA = "tests/data/groundtruth/models/llama-3-8b"

VALID = (Example("--model-path m --speculative-algorithm EAGLE --chunked-prefill-size 4096", model=_LLAMA),
         Example("--model-path m --chunked-prefill-size 8192", model=_LLAMA))
INVALID = (Example("--model-path m --speculative-algorithm EAGLE --chunked-prefill-size 8192", model=_LLAMA,
                   expect=("FS104",), at=("1:46",)),)


def check(ctx: Context) -> list[Diagnostic]:
    import json

    out = []
    for dest, w in sorted(ctx.startup.writes.items()):
        if not w.certain:
            continue
        given = ctx.parsed.values.get(dest)
        d = Diagnostic(CODE, SEVERITY, MESSAGE.format(dest=dest, value=json.dumps(w.value, default=str),
                                                      handler=w.handler, condition=w.condition or "always"),
                       flag=given.option if given is not None else None,
                       location=given.location if given is not None and given.location else ctx.command_location,
                       evidence=(Evidence(w.location, w.condition),),
                       data={"dest": dest, "value": w.value, "phase": "startup", "user_given": given is not None})
        out.append(d if given is not None else at_named_flag(ctx, d))
    return out
