"""Possible serving assertion: a kind of batch fails an assertion (or raise) of SGLang's serving code.

## What it does
Like FS305, follows what SGLang calls when batches arrive on the objects its startup
built, with a batch flagscan does not know, and reports a `raise`/`assert` there that
only the batch selects (`assert not forward_batch.forward_mode.is_mixed()`): not a
`NotImplementedError`, and needing no fact beyond the batch. Whether such a batch
ever arrives depends on the traffic, so this is information. More than three are said
once, with their count.

## Why is this bad?
The check names a kind of batch the chosen code assumes never comes; when it does
(a mixed chunk, a speculative verify step, a multimodal request), the request or the
server fails long after the deploy looked green.

## Example
```
--model-path m --attention-backend triton
```
(with the fixture's TinyMixed model, whose forward asserts that a batch is not mixed.)

## Use instead
```
--model-path m --attention-backend triton
```
with a model or backend whose code takes the batches your settings produce, or
settings that never produce that kind of batch.
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._startup import serving_findings
from flagscan.lint.rules.fs305_possible_serving_failure import MAX_EACH, owns

CODE = "FS306"
NAME = "possible-serving-assertion"
SEVERITY = Severity.INFO
MESSAGE = "SGLang may fail while serving, when {condition}: {message}"
SUMMARY = "{count} assertion(s) in SGLang's serving code fail on some kinds of batches (first: {condition})"
NEEDS = ("startup",)

_LLAMA = "tests/data/groundtruth/models/llama-3-8b"
_MIXED = "fixtures/models/tiny-mixed"

VALID = (
    Example("--model-path m --attention-backend triton", gpu="h200", model=_LLAMA),
    # the fa3 backend's refusal is a NotImplementedError: FS305's
    Example("--model-path m --attention-backend fa3 --speculative-algorithm EAGLE", gpu="h200", model=_LLAMA),
)
INVALID = (
    Example("--model-path m --attention-backend triton", gpu="h200", model=_MIXED, expect=("FS306",), at=("1:1",)),
)


def check(ctx: Context) -> list[Diagnostic]:
    return serving_findings(ctx, CODE, SEVERITY, MESSAGE, SUMMARY, MAX_EACH,
                            [r for r in ctx.startup.rejections if r.phase == "serving" and not owns(r)])
