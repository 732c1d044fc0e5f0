"""Unexpanded variable: an argument comes from a variable the launch file does not set.

## What it does
Reports an argument that references `$NAME`/`${NAME}` when the file (its
`Environment=`, `EnvironmentFile=`, shell assignments or compose `environment:`)
does not give NAME a value. flagscan then treats the value as unknown.

## Why is this bad?
What the server runs with depends on the environment at start; flagscan (and a
reviewer) cannot check it, and an unset variable silently becomes an empty word.

## Example
```
python -m sglang.launch_server --model-path $MODEL
```

## Use instead
```
MODEL=Qwen/Qwen3-8B
python -m sglang.launch_server --model-path $MODEL
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS007"
NAME = "unexpanded-variable"
SEVERITY = Severity.WARNING
MESSAGE = "{flag} is not expanded from this file"
REPORTS = (ProblemKind.UNEXPANDED_VARIABLE,)

VALID = (Example("--model-path Qwen/Qwen3-8B"),)
INVALID = (Example("--model-path $MODEL", expect=("FS007",), at=("1:14",)),)


def report(problem: Problem) -> Diagnostic:
    variables = list(problem.data["variables"])
    message = (f"{problem.data['text']!r} is not expanded from this file ({', '.join(variables)}); "
               "its value depends on the environment at start")
    return Diagnostic(CODE, SEVERITY, message, None, problem.location, (), {"variables": variables})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
