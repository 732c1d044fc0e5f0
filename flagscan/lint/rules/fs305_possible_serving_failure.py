"""Possible failure while serving: the server starts, then a kind of batch makes SGLang's code raise.

## What it does
Once the startup code is followed (see FS303), calls what SGLang calls when batches
arrive on the objects it built (the attention backend's `init_forward_metadata`,
`forward_extend`, `forward_decode`, the model runner's forward paths, the model's
`forward`, the CUDA-graph runner's `replay`; rules/startup.toml [[serving]]) with a
batch flagscan does not know, and reports a `raise`/`assert` there with the test on
the batch that selects it (`forward_batch.forward_mode.is_target_verify()`). A
`NotImplementedError` (a kind of batch the chosen code does not support) or a raise
that also needs a fact flagscan was not given is a warning; an assertion on the
batch's contents alone is information. More than three are said once, with their
count.

## Why is this bad?
The server passes its health check and then fails on the first batch of that kind
(a speculative verify step, a mixed chunk, a multimodal request), often under load,
long after the deploy looked green.

## Example
```
--model-path m --attention-backend fa3 --speculative-algorithm EAGLE
```
(the fixture's fa3 backend refuses target-verify decode batches.)

## Use instead
```
--model-path m --attention-backend fa3
```
or an attention backend that supports the batches your settings produce.
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.model import Example
from flagscan.lint.rules._startup import finding

CODE = "FS305"
NAME = "possible-serving-failure"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang may fail while serving, when {condition}: {message}"
SUMMARY = "{count} place(s) in SGLang's serving code may fail on some kinds of batches (first: {condition})"
NEEDS = ("startup",)
UNSUPPORTED = ("NotImplementedError",)  # the exception Python code raises for "not supported"
MAX_EACH = 3

_LLAMA = "tests/data/groundtruth/models/llama-3-8b"

VALID = (
    Example("--model-path m --attention-backend fa3", gpu="h200", model=_LLAMA),
    Example("--model-path m --attention-backend triton --speculative-algorithm EAGLE", gpu="h200", model=_LLAMA),
)
INVALID = (
    Example("--model-path m --attention-backend fa3 --speculative-algorithm EAGLE", gpu="h200", model=_LLAMA,
            expect=("FS305",), at=("1:40",)),
)


def severity(raised) -> Severity:
    """Warning for an unsupported kind of batch or a raise that also needs a fact; info otherwise."""
    return SEVERITY if raised.exception in UNSUPPORTED or raised.needs else Severity.INFO


def _at_read_flag(ctx, d: Diagnostic, raised) -> Diagnostic:
    """Where no flag is named in the condition: at the first flag given whose setting the serving path read."""
    from dataclasses import replace

    if d.flag:
        return d
    for dest in raised.reads:
        given = ctx.parsed.values.get(dest)
        if given is not None and given.location is not None:
            return replace(d, location=given.location, flag=given.option)
    return d


def check(ctx):
    serving = [r for r in ctx.startup.rejections if r.phase == "serving"]
    serving.sort(key=lambda r: (severity(r) is not SEVERITY, r.location, r.message))
    if len(serving) <= MAX_EACH:
        return [_at_read_flag(ctx, finding(ctx, CODE, severity(r), MESSAGE.format(
            condition=r.condition, message=r.message or r.exception), r, condition=r.condition), r) for r in serving]
    first = serving[0]
    worst = SEVERITY if any(severity(r) is SEVERITY for r in serving) else Severity.INFO
    d: Diagnostic = finding(ctx, CODE, worst, SUMMARY.format(count=len(serving), condition=first.condition), first,
                            condition=first.condition, checks=[r.location for r in serving])
    return [_at_read_flag(ctx, d, first)]
