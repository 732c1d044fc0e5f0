"""No launch command: the file holds no SGLang launch command, so nothing was checked.

## What it does
Reports a linted file in which flagscan finds no `python -m sglang.launch_server`,
`sglang serve` or server-argument list (in `ExecStart=`, a script, a compose
`command:` or a Kubernetes container).

## Why is this bad?
A clean result for such a file would be a false "all good": usually the wrong file
was given, or the launcher is wrapped in a way flagscan cannot follow.

## Example
```
ExecStart=/usr/bin/my-wrapper --serve
```

## Use instead
```
ExecStart=/srv/venv/bin/python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B
```
"""

from flagscan.diagnostics import Diagnostic, FileLocation, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS010"
NAME = "no-launch-command"
SEVERITY = Severity.ERROR
MESSAGE = "no SGLang launch command found"

VALID = (Example("--model-path m"),)
INVALID = (Example("/usr/bin/my-wrapper --serve", expect=("FS010",), at=("1:1",)),)


def file_finding(path: str) -> Diagnostic:
    """The finding for a file without a launch command (the engine decides it per file)."""
    return Diagnostic(CODE, SEVERITY, f"no SGLang launch command found in {path}", None, FileLocation(str(path), 1, 1))


def check(ctx: Context) -> tuple[Diagnostic, ...]:
    # Decided per file before any command exists: flagscan.lint.engine calls file_finding().
    return ()
