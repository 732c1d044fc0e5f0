"""Ambiguous flag: a prefix that could be several options, which SGLang's parser refuses.

## What it does
Reports an option written as a prefix of more than one option of the pinned
revision, with the options it could be. (A unique prefix, which argparse expands,
is FS006.)

## Why is this bad?
argparse exits with "ambiguous option: ... could match ..." before the server
starts; in a unit with `Restart=on-failure` this becomes a restart loop.

## Example
```
--model-path m --enable 1
```

## Use instead
The full option meant:
```
--model-path m --enable-dp-attention
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS008"
NAME = "ambiguous-flag"
SEVERITY = Severity.ERROR
MESSAGE = "{flag} is ambiguous"
REPORTS = (ProblemKind.AMBIGUOUS_OPTION,)

VALID = (Example("--model-path m --enable-dp-attention --tp-size 2"),
         Example("--model-path m --chunked-prefill 4096"))
INVALID = (Example("--model-path m --enable 1", expect=("FS008",), at=("1:16",)),)


def report(problem: Problem) -> Diagnostic:
    candidates = list(problem.data["candidates"])
    return Diagnostic(CODE, SEVERITY, f"{problem.option} is ambiguous: it could be {', '.join(candidates)}",
                      problem.option, problem.location, (), {"candidates": candidates})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
