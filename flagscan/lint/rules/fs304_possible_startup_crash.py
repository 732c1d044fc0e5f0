"""Possible startup crash: SGLang's startup code raises under facts flagscan was not given.

## What it does
Reports a `raise`/`assert` of SGLang's startup code (see FS303) that fires only under
a fact of the configuration flagscan was not given: the model's config.json, a
setting it could not decide, an environment variable, a package version. Checks that
only the model's config.json would decide are reported once, with their count, as a
request for `--model-config`; so are those that only another model's config.json would
decide (the speculative draft model's, read where this machine has it: a directory, the
Hugging Face cache), and those that the model's tokenizer would decide (whether it keeps a
string such as a reasoning parser's `</think>` as one token: read from tokenizer_config.json
or tokenizer.json beside config.json). Raises that depend on the run itself (the state of
torch.distributed, sockets, tensor shapes) are not reported.

## Why is this bad?
The same unit may start with one model or on one node and crash on another; giving
the missing fact turns the warning into a certain answer.

## Example
```
--model-path m
```
(no model config given: whether the architecture is registered is not known.)

## Use instead
Give the model's config.json (`--model-config DIR`), or the fact named in the finding:
```
--model-path m
```
with `--model-config path/to/model`.
"""

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example
from flagscan.lint.rules._startup import finding

CODE = "FS304"
NAME = "possible-startup-crash"
SEVERITY = Severity.WARNING
MESSAGE = "SGLang may crash while starting: {message} (needs {needs})"
MODEL_MESSAGE = "{count} startup check(s) depend on the model's config.json; give --model-config to decide them"
TOKENIZER_MESSAGE = ("{count} startup check(s) depend on the model's tokenizer (which strings it keeps as one token); "
                     "give --model-config a model directory holding its tokenizer_config.json to decide them")
OTHER_MESSAGE = ("{count} startup check(s) depend on the config.json of another model (the draft model), not found on "
                 "this machine; a local directory or the Hugging Face cache holding it decides them")
NEEDS = ("startup",)

VALID = (Example("--model-path m", model="tests/data/groundtruth/models/llama-3-8b"),)
INVALID = (Example("--model-path m", expect=("FS304",), at=("1:1",)),)


def check(ctx: Context) -> list[Diagnostic]:
    possible = [r for r in ctx.startup.rejections if not r.certain and r.phase != "serving"]  # FS305: serving
    groups = {MODEL_MESSAGE: [r for r in possible if set(r.needs) <= {"model"}],
              OTHER_MESSAGE: [r for r in possible if r.needs and set(r.needs) <= {"model:other"}],
              TOKENIZER_MESSAGE: [r for r in possible if r.needs and set(r.needs) <= {"model", "model:tokenizer"}
                                  and "model:tokenizer" in r.needs]}
    grouped = [r for group in groups.values() for r in group]
    out: list[Diagnostic] = [finding(ctx, CODE, SEVERITY, MESSAGE.format(message=r.message or r.exception,
                                                                           needs=", ".join(r.needs)), r)
                             for r in possible if r not in grouped]
    for message, group in groups.items():
        if group:
            out.append(finding(ctx, CODE, SEVERITY, message.format(count=len(group)), group[0],
                               checks=[r.location for r in group]))
    return out
