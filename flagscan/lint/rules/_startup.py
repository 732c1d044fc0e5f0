"""lint: what the startup-phase rules share (placing a finding, SGLang's evidence for it)."""

from __future__ import annotations

from flagscan.diagnostics import Diagnostic, Evidence, Severity
from flagscan.lint.rules._settings import at_named_flag


def finding(ctx, code: str, severity: Severity, message: str, raised, **data) -> Diagnostic:
    """A diagnostic for one startup raise: at the flag its condition names, else at the command."""
    extra = {"phase": raised.phase, "exception": raised.exception, "handler": raised.handler, **data}
    if raised.needs:
        extra["needs"] = list(raised.needs)
    d = Diagnostic(code, severity, message, location=ctx.command_location,
                   evidence=(Evidence(raised.location, raised.condition),), data=extra)
    return at_named_flag(ctx, d)
