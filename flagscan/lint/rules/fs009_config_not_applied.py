"""Config not applied: a `--config` file whose options SGLang (or flagscan) does not take as written.

## What it does
Reports a `--config` file that SGLang starts without merging as the command
suggests: spelled otherwise than the exact word `--config` followed by the file
(`--config=FILE`, an abbreviation: SGLang's merge looks for that word, so the file's
options are ignored), not found beside the launch file (flagscan then treats its
options as unknown), or holding a key whose action only newer releases merge.

## Why is this bad?
The server starts, but not with the settings in the file, or with settings nobody
reviewed: every other finding is for the command without them.

## Example
```
--model-path m --config=serve.yaml
```

## Use instead
```
--model-path m --config serve.yaml
```
"""

from flagscan.diagnostics import Diagnostic, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS009"
NAME = "config-not-applied"
SEVERITY = Severity.WARNING
MESSAGE = "{flag}: the config file's options are not applied as written"
REPORTS = (ProblemKind.CONFIG_NOT_MERGED, ProblemKind.CONFIG_NOT_FOUND, ProblemKind.CONFIG_NEWER_ACTION)

_TREE = "fixtures/trees/era2"  # a tree whose parser has --config (the parse alone decides these)

VALID = (Example("--model-path m --tp-size 2", sglang=_TREE, gpu=None),)
INVALID = (
    Example("--model-path m --config=absent.yaml", sglang=_TREE, gpu=None, expect=("FS009",), at=("1:16",)),
    Example("--model-path m --config absent.yaml", sglang=_TREE, gpu=None, expect=("FS009",), at=("1:25",)),
)


def report(problem: Problem) -> Diagnostic:
    data = problem.data
    if problem.kind is ProblemKind.CONFIG_NOT_MERGED:
        message = (f"{data['written']} is not merged by SGLang (only the exact word {data['config']} followed by "
                   "the file is); the file's options are ignored")
        reason = "config-not-merged"
    elif problem.kind is ProblemKind.CONFIG_NOT_FOUND:
        message, reason = f"config file {data['file']} not found here; its options are unknown", "config-not-found"
    else:
        message = (f"config key {data['key']!r} names a flag with action {data['action']!r}, which SGLang's config "
                   "merge refuses (newer releases accept single-value actions)")
        reason = "config-unsupported-action"
    return Diagnostic(CODE, SEVERITY, message, problem.option, problem.location, (), {"reason": reason})


def check(ctx: Context) -> list[Diagnostic]:
    return [report(p) for p in ctx.problems(REPORTS)]
