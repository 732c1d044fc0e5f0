"""lint: which rules run (select/ignore by code prefix, per-file ignores), as ruff does it."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from flagscan.lint.model import Rule


class SelectionError(ValueError):
    """A code or prefix that names no rule."""


def _matches(code: str, prefix: str) -> bool:
    return prefix == "ALL" or code.startswith(prefix)


def check_prefixes(prefixes: Iterable[str], codes: Sequence[str]) -> list[str]:
    out = []
    for raw in prefixes:
        p = raw.strip().upper()
        if not p:
            continue
        if p != "ALL" and not any(_matches(c, p) for c in codes):
            raise SelectionError(f"{raw!r} matches no flagscan rule code (FS001 ... {codes[-1]})")
        out.append(p)
    return out


@dataclass(frozen=True, slots=True)
class Selection:
    """`select` replaces the default set when given; `ignore` removes; `per_file` maps a glob
    (matched against the path as given and its name) to codes ignored there."""

    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())

    def enabled(self, rule: Rule, path: str | None = None) -> bool:
        if self.select:
            on = any(_matches(rule.code, p) for p in self.select)
        else:
            on = rule.default
        on = on or any(_matches(rule.code, p) for p in self.extend_select)
        if any(_matches(rule.code, p) for p in self.ignore):
            return False
        if path is not None and any(_matches(rule.code, p) for p in self.file_ignores(path)):
            return False
        return on

    def file_ignores(self, path: str) -> tuple[str, ...]:
        name = PurePath(path).name
        posix = PurePath(path).as_posix()
        out: list[str] = []
        for pattern, codes in self.per_file:
            if fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(name, pattern) \
                    or fnmatch.fnmatch(posix, f"*/{pattern}"):
                out.extend(codes)
        return tuple(out)
