"""Setting changes in upgrade: the command runs with a different effective setting after the upgrade.

## What it does
With an upgrade target and a GPU, resolves the command at both revisions (same GPU,
model and environment) and reports every setting whose effective value differs (with its origin, default /
user / adjusted, on both sides), with the target release's causes as evidence.

## Why is this bad?
A release bump changes defaults and auto-adjustments silently: throughput or memory
changes after an upgrade are usually these.

## Example
```
--model-path m --tokenizer-worker-num 2      (upgrading 0.5.90 -> 0.5.91)
```
(`--tokenizer-worker-num` now converts its value with `str`: `2` becomes `"2"`.)

## Use instead
Pin the settings whose old value you rely on, or adapt the command to the new meaning:
```
--model-path m --schedule-policy fcfs
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.context import Context
from flagscan.lint.model import Example

if TYPE_CHECKING:
    from flagscan.evaluate.resolution.results import Resolution, Setting

CODE = "FS503"
NAME = "setting-changes-in-upgrade"
SEVERITY = Severity.INFO
MESSAGE = "{dest}: {old} -> {new} in SGLang {version}"
NEEDS = ("resolution", "upgrade", "upgrade-resolution")

VALID = (Example("--model-path m --schedule-policy fcfs --chunked-prefill-size 1024",
                 upgrade_to="fixtures/trees/lint-next"),)
INVALID = (Example("--model-path m --tokenizer-worker-num 2", upgrade_to="fixtures/trees/lint-next",
                   expect=("FS503",), at=("1:1", "1:16")),)


def _show(setting: Setting) -> str:
    import json

    from flagscan.evaluate.resolution.results import jsonable

    if not setting.certain:
        return "unknown"
    text = json.dumps(jsonable(setting.value), default=str)
    return (text if len(text) <= 40 else text[:37] + "...") + f" ({setting.origin})"


def changes(before: Resolution, after: Resolution) -> list[tuple[str, Setting, Setting]]:
    """(dest, old setting or None, new setting or None) for settings whose value or origin differ."""
    from flagscan.evaluate.resolution.results import jsonable

    out = []
    for dest in sorted(set(before.settings) | set(after.settings)):
        old, new = before.settings.get(dest), after.settings.get(dest)
        if old is None or new is None:
            continue  # a flag that appears or disappears is FS501 / the flags diff
        if not (old.certain and new.certain):
            continue  # precision: an unknown on either side is not a change
        if jsonable(old.value) != jsonable(new.value):
            out.append((dest, old, new))  # same value from another origin runs the same: not reported
    return out


def _state(setting: Setting) -> dict[str, Any]:
    from flagscan.evaluate.resolution.results import jsonable

    return {"value": jsonable(setting.value), "origin": setting.origin}


def check(ctx: Context) -> list[Diagnostic]:
    _parsed_after, after = ctx.after_upgrade
    out = []
    for dest, old, new in changes(ctx.resolution, after):
        given = ctx.parsed.values.get(dest)
        where = given.location if given is not None and given.location else ctx.command_location
        evidence = tuple(Evidence(c.location, c.condition) for c in new.because)
        out.append(Diagnostic(CODE, SEVERITY, MESSAGE.format(dest=dest, old=_show(old), new=_show(new),
                                                             version=ctx.given_upgrade.version),
                              dest, where, evidence, {"upgrade_to": ctx.given_upgrade.version, "old": _state(old),
                                                      "new": _state(new)}))
    return out
