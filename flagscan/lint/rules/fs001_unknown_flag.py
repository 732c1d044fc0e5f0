"""Unknown flag: the option is not registered by `sglang serve` at the pinned revision.

## What it does
Reports an option that SGLang's parser does not know, with the closest known option
as a did-you-mean suggestion.

## Why is this bad?
SGLang's argparse parser exits with "unrecognized arguments" before the server
starts; in a unit with `Restart=on-failure` this becomes a restart loop.

## Example
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-sise 2
```

## Use instead
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS001"
NAME = "unknown-flag"
SEVERITY = Severity.ERROR
MESSAGE = "unknown flag {flag}"
REPORTS = (ProblemKind.UNKNOWN_OPTION, ProblemKind.STRAY_ARGUMENT)

VALID = (Example("--model-path m --tp-size 2"),)
INVALID = (Example("--model-path m --tp-sise 2", expect=("FS001",), at=("1:16",)),
           Example("--model-path m --enable-dp-attention yes", expect=("FS001",), at=("1:38",)))


def report(problem: Problem) -> Diagnostic:
    if problem.kind is ProblemKind.STRAY_ARGUMENT:
        after = problem.data.get("after")
        why = f" ({after} takes no value)" if after else ""
        return Diagnostic(CODE, SEVERITY, f"unrecognized argument {problem.data['text']!r}{why}", problem.option,
                          problem.location, (), {"kind": "argument", "suggestion": None})
    hint = problem.data.get("suggestion")
    message = f"unknown flag {problem.option}" + (f"; did you mean {hint}?" if hint else "")
    return Diagnostic(CODE, SEVERITY, message, problem.option, problem.location, (), {"suggestion": hint})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
