"""inputs: what argparse takes one argv string for (an option, a value, unknown, ambiguous)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# argparse's _negative_number_matcher.
_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")


@dataclass(frozen=True, slots=True)
class Resolved:
    """`kind`: "value", "option", "unknown" or "ambiguous". `option` is the registered option
    string; `explicit` the text after `=` (or after a short option); `candidates` the options
    an ambiguous abbreviation matches."""

    kind: str
    option: str | None = None
    explicit: str | None = None
    abbreviated: bool = False
    candidates: tuple[str, ...] = ()


class OptionTable:
    """Mirrors ArgumentParser._parse_optional() (exact match, `--opt=value`, unique prefix when
    allow_abbrev, negative numbers, strings with spaces), so it gives the same answer on every
    Python version instead of each version's own variant."""

    def __init__(self, options: Iterable[str], allow_abbrev: bool) -> None:
        self.options = tuple(dict.fromkeys(options))
        self.known = frozenset(self.options)
        self.allow_abbrev = allow_abbrev
        self.negative_options = any(_NEGATIVE.match(o) for o in self.options)

    def resolve(self, arg: str) -> Resolved:
        if not arg or arg[0] != "-":
            return Resolved("value")
        if arg in self.known:
            return Resolved("option", arg)
        if len(arg) == 1:
            return Resolved("value")
        if "=" in arg:
            option, explicit = arg.split("=", 1)
            if option in self.known:
                return Resolved("option", option, explicit)
        matches = self._prefix_matches(arg)
        if len(matches) > 1:
            return Resolved("ambiguous", candidates=tuple(m[0] for m in matches))
        if len(matches) == 1:
            match, value, abbreviated = matches[0]
            return Resolved("option", match, value, abbreviated)
        if _NEGATIVE.match(arg) and not self.negative_options:
            return Resolved("value")
        if " " in arg:
            return Resolved("value")
        return Resolved("unknown")

    def _prefix_matches(self, arg: str) -> list[tuple[str, str | None, bool]]:
        if arg.startswith("--"):
            if not self.allow_abbrev:
                return []
            prefix, eq, explicit = arg.partition("=")
            return [(o, explicit if eq else None, True) for o in self.options if o.startswith(prefix)]
        # A single-dash word: `-xVALUE` for a short option `-x`, or a prefix of `-long` options.
        out: list[tuple[str, str | None, bool]] = []
        for option in self.options:
            if option == arg[:2]:
                out.append((option, arg[2:], False))
            elif self.allow_abbrev and option.startswith(arg):
                out.append((option, None, True))
        return out
