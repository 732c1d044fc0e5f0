"""Unused suppression: a `# flagscan: ignore=...` comment that suppresses nothing.

## What it does
Reports a suppression comment (line or file-wide) naming a code that no finding
of the selected rules matched, or naming a code flagscan does not have.

## Why is this bad?
Stale suppressions hide the next real finding on that line, and an unknown code
is usually a typo.

## Example
```
# flagscan: ignore=FS201
--model-path m --tp-size 2
```

## Use instead
```
--model-path m --tp-size 2
```
"""

from flagscan.diagnostics import Diagnostic, FileLocation, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS902"
NAME = "unused-suppression"
SEVERITY = Severity.WARNING
MESSAGE = "unused suppression: {codes}"

VALID = (Example("--model-path m --tp-size 1 # flagscan: ignore=FS901"),)
INVALID = (Example("--model-path m --tp-size 2 # flagscan: ignore=FS901", expect=("FS902",), at=("1:28",)),)


def finding(where: FileLocation, stale: list[str]) -> Diagnostic:
    """The finding for one suppression comment whose codes (`stale`) suppressed nothing."""
    return Diagnostic(CODE, SEVERITY, MESSAGE.format(codes=", ".join(stale)), None, where, (), {"codes": stale})


def check(ctx: Context) -> tuple[Diagnostic, ...]:
    # Suppressions are judged per file, after every rule ran: flagscan.lint.suppress calls finding().
    return ()
