"""lint: helpers the knock-on family shares (where a finding about the command points)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flagscan.diagnostics import Diagnostic
from flagscan.ruledata import condition_fields

if TYPE_CHECKING:
    from flagscan.lint.context import Context


def at_named_flag(ctx: Context, diagnostic: Diagnostic) -> Diagnostic:
    """The diagnostic moved to the first flag the user gave that its SGLang condition names
    (a rejection is about the whole command, but the flag that triggers it is where to look)."""
    from dataclasses import replace

    for evidence in diagnostic.evidence:
        for name in condition_fields().findall(evidence.text or ""):
            given = ctx.parsed.values.get(name)
            if given is not None and given.location is not None:
                return replace(diagnostic, location=given.location, flag=diagnostic.flag or given.option)
    return diagnostic
