"""lint: what the startup-phase rules share (placing a finding, SGLang's evidence for it)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.rules._settings import at_named_flag

if TYPE_CHECKING:
    from flagscan.evaluate.startup.results import StartupRaise
    from flagscan.lint.context import Context


def finding(ctx: Context, code: str, severity: Severity, message: str, raised: StartupRaise, **data: Any) -> Diagnostic:
    """A diagnostic for one startup raise: at the flag its condition names, else at the command."""
    extra = {"phase": raised.phase, "exception": raised.exception, "handler": raised.handler, **data}
    if raised.needs:
        extra["needs"] = list(raised.needs)
    d = Diagnostic(code, severity, message, location=ctx.command_location,
                   evidence=(Evidence(raised.location, raised.condition),), data=extra)
    return at_named_flag(ctx, d)


def at_read_flag(ctx: Context, d: Diagnostic, raised: StartupRaise) -> Diagnostic:
    """Where no flag is named in the condition: at the first flag given whose setting the serving path read."""
    if d.flag:
        return d
    for dest in raised.reads:
        given = ctx.parsed.values.get(dest)
        if given is not None and given.location is not None:
            return replace(d, location=given.location, flag=given.option)
    return d


def serving_findings(ctx: Context, code: str, severity: Severity, message: str, summary: str, max_each: int,
                     raises: list[StartupRaise]) -> list[Diagnostic]:
    """One finding per serving raise (in source order), or, beyond `max_each`, one that gives their count."""
    raises = sorted(raises, key=lambda r: (r.location, r.message))
    if len(raises) <= max_each:
        return [at_read_flag(ctx, finding(ctx, code, severity, message.format(
            condition=r.condition, message=r.message or r.exception), r, condition=r.condition), r) for r in raises]
    first = raises[0]
    d = finding(ctx, code, severity, summary.format(count=len(raises), condition=first.condition), first,
                condition=first.condition, checks=[r.location for r in raises])
    return [at_read_flag(ctx, d, first)]
