"""Invalid value: the value does not convert to the flag's type or is not one of its choices.

## What it does
Converts each value with the flag's own type and checks it against the choices the
pinned revision declares, as argparse will at start-up. Also reports a missing
value, arguments SGLang's parser rejects otherwise, and a `--config` file SGLang
refuses (several given, none after the option, not YAML, unreadable, not a mapping,
a key whose action the merge refuses); a config file SGLang starts without is FS009.

## Why is this bad?
argparse exits with "invalid choice" or "invalid int value" and the server never
starts.

## Example
```
--model-path m --attention-backend fa4
```

## Use instead
```
--model-path m --attention-backend triton
```
"""

from dataclasses import replace
from typing import Any

from flagscan.diagnostics import Diagnostic, Evidence, Problem, ProblemKind, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

CODE = "FS003"
NAME = "invalid-value"
SEVERITY = Severity.ERROR
MESSAGE = "{flag}: invalid value"
REPORTS = (ProblemKind.INVALID_TYPE, ProblemKind.INVALID_CHOICE, ProblemKind.MISSING_VALUE,
           ProblemKind.PARSER_REJECTS, ProblemKind.CONFIG_SEVERAL, ProblemKind.CONFIG_NO_FILE,
           ProblemKind.CONFIG_NOT_YAML, ProblemKind.CONFIG_UNREADABLE, ProblemKind.CONFIG_NOT_MAPPING,
           ProblemKind.CONFIG_UNSUPPORTED)

VALID = (Example("--model-path m --attention-backend triton --tp-size 2"),)
INVALID = (
    Example("--model-path m --attention-backend fa4", expect=("FS003",), at=("1:36",)),
    Example("--model-path m --tp-size two", expect=("FS003",), at=("1:26",)),
    Example("--model-path m --tp-size", expect=("FS003",), at=("1:16",)),
    Example("--model-path m --config c.json", sglang="fixtures/trees/era2", gpu=None, expect=("FS003",),
            at=("1:25",)),
)


def _message(problem: Problem) -> tuple[str, dict[str, Any]]:
    """(message, data) for each kind of problem this rule reports."""
    kind, data, option = problem.kind, problem.data, problem.option
    if kind is ProblemKind.INVALID_TYPE:
        return f"{option}: {data['value']!r} is not a valid {data['type_name']}", {"value": data["value"],
                                                                                   "reason": "type"}
    if kind is ProblemKind.INVALID_CHOICE:
        allowed = ", ".join(map(str, data["choices"]))
        return (f"{option}: {data['value']!r} is not one of: {allowed}",
                {"value": data["value"], "choices": data["choices"], "reason": "choice"})
    if kind is ProblemKind.MISSING_VALUE:
        expected, explicit = data["expected"], data.get("explicit")
        if explicit is not None and expected == 0:
            return f"{option} takes no value (got {explicit!r})", {"reason": "missing-value"}
        return f"{option} expects {'a value' if expected == 1 else f'{expected} values'}", {"reason": "missing-value"}
    if kind is ProblemKind.PARSER_REJECTS:
        if problem.location is None:
            return f"SGLang's parser rejects these arguments: {data['message']}", {}
        return data["message"], {"reason": "argparse"}
    file = data.get("file")
    texts = {
        ProblemKind.CONFIG_SEVERAL: ("several config files given; SGLang refuses to start", "config"),
        ProblemKind.CONFIG_NO_FILE: (f"no file after {data.get('config')}; SGLang refuses to start", "config"),
        ProblemKind.CONFIG_NOT_YAML: (f"config file must be YAML (.yaml or .yml): {file}", "config"),
        ProblemKind.CONFIG_UNREADABLE: (f"config file {file} cannot be read: {data.get('error')}", "config-unreadable"),
        ProblemKind.CONFIG_NOT_MAPPING: (f"config file {file} must hold a mapping at its root", "config"),
        ProblemKind.CONFIG_UNSUPPORTED: (f"config key {data.get('key')!r} names a flag with action "
                                         f"{data.get('action')!r}, which SGLang's config merge refuses "
                                         "(newer releases accept single-value actions)", "config-unsupported-action"),
    }
    text, reason = texts[kind]
    return text, {"reason": reason}


def report(problem: Problem) -> Diagnostic:
    message, data = _message(problem)
    # an argparse failure flagscan did not foresee names no flag: the message is argparse's own
    flag = None if problem.kind is ProblemKind.PARSER_REJECTS else problem.option
    return Diagnostic(CODE, SEVERITY, message, flag, problem.location, (), data)


def check(ctx: Context) -> list[Diagnostic]:
    out = []
    for d in map(report, ctx.problems(REPORTS)):
        flag = ctx.flag(d.flag)
        if flag is not None:
            d = replace(d, evidence=(*d.evidence, Evidence(str(flag.location), f"{d.flag}: type={flag.type}")))
        out.append(d)
    return out
