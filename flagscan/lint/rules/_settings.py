"""lint: helpers the knock-on family shares (which causes merely fill in a placeholder default)."""

from __future__ import annotations

import re

_FIELD = re.compile(r"\b(?:self|server_args|args|cfg)\.(\w+)")


def fills_placeholder(setting) -> bool:
    """True when every cause tests only the setting itself (`if self.x is None: self.x = ...`):
    SGLang is choosing a value for an unset option, not reacting to another setting or the GPU."""
    if not setting.because:
        return False
    for cause in setting.because:
        names = set(_FIELD.findall(cause.condition or ""))
        if not cause.condition or names != {setting.dest} or _mentions_world(cause.condition):
            return False
    return True


def _mentions_world(condition: str) -> bool:
    # A condition that also calls something (a hardware probe, the model config) is a reaction.
    stripped = _FIELD.sub("", condition)
    return "(" in stripped


def at_named_flag(ctx, diagnostic):
    """The diagnostic moved to the first flag the user gave that its SGLang condition names
    (a rejection is about the whole command, but the flag that triggers it is where to look)."""
    from dataclasses import replace

    for evidence in diagnostic.evidence:
        for name in _FIELD.findall(evidence.text or ""):
            given = ctx.parsed.values.get(name)
            if given is not None and given.location is not None:
                return replace(diagnostic, location=given.location, flag=diagnostic.flag or given.option)
    return diagnostic
