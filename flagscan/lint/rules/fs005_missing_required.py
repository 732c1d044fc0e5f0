"""Missing required flag: an option SGLang's parser requires is absent.

## What it does
Reports every `required=True` option of the pinned revision that the command does
not give (only when every argument of the command is visible to flagscan).

## Why is this bad?
argparse exits with "the following arguments are required" before anything starts.

## Example
```
python -m sglang.launch_server --tp-size 2
```

## Use instead
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS005"
NAME = "missing-required-flag"
SEVERITY = Severity.ERROR
MESSAGE = "{flag} is required"
REPORTS = (ProblemKind.MISSING_REQUIRED,)

VALID = (Example("--model-path m --tp-size 2"),)
INVALID = (Example("--tp-size 2", expect=("FS005",), at=("1:1",)),)


def report(problem: Problem) -> Diagnostic:
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(flag=problem.option), problem.option, problem.location)


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
