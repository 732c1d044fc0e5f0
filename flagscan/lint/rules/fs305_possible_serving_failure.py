"""Possible failure while serving: the server starts, then a kind of batch makes SGLang's code raise.

## What it does
Once the startup code is followed (see FS303), calls what SGLang calls when batches
arrive on the objects it built (the attention backend's `init_forward_metadata`,
`forward_extend`, `forward_decode`, the model runner's forward paths, the model's
`forward`, the CUDA-graph runner's `replay`; rules/startup.toml [[serving]]) with a
batch flagscan does not know, once per forward mode the settings produce (a
TARGET_VERIFY batch only with speculative decoding; rules/startup.toml
[serving_batch.modes]) and, for the attention backend, once per kind of layer the
model holds (a hybrid model's full- and linear-attention layers), and reports a `raise`
there with the mode, the layer and the test on the batch that selects it (`a
TARGET_VERIFY batch through a RadixLinearAttention layer`, `forward_batch.spec_info is not None`;
the test itself, `forward_batch.forward_mode.is_target_verify()`, where the release
has no enum of modes) when it is a
`NotImplementedError` (a kind of batch the chosen code does not support) or also
needs a fact flagscan was not given. Any other raise or assertion on the batch alone
is FS306. More than three are said once, with their count.

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

from __future__ import annotations

from typing import TYPE_CHECKING

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._startup import serving_findings

if TYPE_CHECKING:
    from flagscan.evaluate.startup.results import StartupRaise

CODE = "FS305"
NAME = "possible-serving-failure"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang may fail while serving, when {condition}: {message}"
SUMMARY = "{count} place(s) in SGLang's serving code may fail on some kinds of batches (first: {condition})"
NEEDS = ("startup",)
UNSUPPORTED = ("NotImplementedError",)  # the exception Python code raises for "not supported"
MAX_EACH = 3

_LLAMA = "tests/data/groundtruth/models/llama-3-8b"
_MIXED = "fixtures/models/tiny-mixed"  # its forward asserts on the batch alone: FS306's, not this rule's

VALID = (
    Example("--model-path m --attention-backend fa3", gpu="h200", model=_LLAMA),
    Example("--model-path m --attention-backend triton --speculative-algorithm EAGLE", gpu="h200", model=_LLAMA),
    Example("--model-path m --attention-backend triton", gpu="h200", model=_MIXED),
)
INVALID = (
    Example("--model-path m --attention-backend fa3 --speculative-algorithm EAGLE", gpu="h200", model=_LLAMA,
            expect=("FS305",), at=("1:40",)),
)


def owns(raised: StartupRaise) -> bool:
    """A serving raise of an unsupported kind of batch, or one that also needs a fact (the rest are FS306's)."""
    return raised.exception in UNSUPPORTED or bool(raised.needs)


def check(ctx: Context) -> list[Diagnostic]:
    return serving_findings(ctx, CODE, SEVERITY, MESSAGE, SUMMARY, MAX_EACH,
                            [r for r in ctx.startup.rejections if r.phase == "serving" and owns(r)])
