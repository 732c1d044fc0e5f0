"""No-op on this GPU: the flag can never change what the server does on the target GPU.

## What it does
Asks the runtime-gate analysis (`flagscan.evaluate.gates`) for the verdict of every
flag the command gives and reports those that are `NO_OP` with certainty: every
runtime read of the setting sits behind a condition that is false on this GPU (or
with these settings), e.g. `apply_flashinfer_allreduce_fusion()` starting with
`(_is_sm90_supported or _is_sm100_supported)` on SM120. Evidence: each read with
its condition. `--fix` removes the flag. Without a GPU (`--gpu`, or one detected)
the rule reports nothing, and the run says "gates: not analysed".

## Why is this bad?
A flag that cannot take effect costs restarts and bisecting when a change is
attributed to it, and hides the real cause.

## Example
```
--model-path m --enable-allreduce-fusion   (on an SM120 GPU)
```

## Use instead
```
--model-path m
```
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS201"
NAME = "no-op-on-gpu"
SEVERITY = Severity.WARNING
MESSAGE = "{option} has no effect on {gpu} ({sm}): every read of {dest} is gated off"
NEEDS = ("resolution", "gates")
FIXABLE = True

VALID = (Example("--model-path m --enable-allreduce-fusion", gpu="h200"),)
INVALID = (
    Example("--model-path m --enable-allreduce-fusion", gpu="rtx-pro-6000", expect=("FS201",),
            at=("1:16",), fixed="--model-path m"),
    Example("--model-path m --tp 4 --enable-flashinfer-allreduce-fusion --mem-fraction-static 0.85",
            gpu="rtx-pro-6000", sglang="0.5.10", expect=("FS201",), at=("1:23",),
            fixed="--model-path m --tp 4 --mem-fraction-static 0.85"),
)


def check(ctx: Context) -> list[Diagnostic]:
    verdicts = ctx.gates
    if not verdicts:
        return []
    gpu = ctx.given_scenario.gpu
    out = []
    for dest, given in ctx.parsed.values.items():
        v = verdicts.get(dest)
        if v is None or v.status != "NO_OP" or not v.certain:
            continue  # precision before recall: an uncertain no-op is not stated
        message = MESSAGE.format(option=given.option, gpu=gpu.name or gpu.sm, sm=gpu.sm, dest=dest)
        out.append(Diagnostic(CODE, SEVERITY, message, given.option, given.location or ctx.command_location,
                              v.evidence, {"dest": dest, "fix": "remove"}))
    return out
