"""lint: `# flagscan: ignore=CODES` comments in the linted file, and which of them were used.

A line comment suppresses findings located on its own line (end of line) or on the
next line (a comment line before the flag; systemd allows comment lines inside a
continued `ExecStart=`). `# flagscan: ignore-file=CODES` applies to the whole file.
Codes are exact codes or prefixes (`FS2`); `ALL` matches every code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from flagscan.diagnostics import Diagnostic, FileLocation

_COMMENT = re.compile(r"[#;]\s*flagscan:\s*(ignore-file|ignore)\s*(?:=\s*([A-Za-z0-9_, ]*))?")
_CODE = re.compile(r"^(ALL|FS\d{1,3})$")


@dataclass(frozen=True, slots=True)
class Suppression:
    line: int           # 1-based line of the comment
    column: int         # 1-based column of the comment
    file_wide: bool
    codes: tuple[str, ...]


def find(text: str) -> list[Suppression]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        for m in _COMMENT.finditer(line):
            codes = tuple(c.strip().upper() for c in (m.group(2) or "ALL").split(",") if c.strip()) or ("ALL",)
            out.append(Suppression(number, m.start() + 1, m.group(1) == "ignore-file", codes))
    return out


def _covers(code: str, pattern: str) -> bool:
    return pattern == "ALL" or code.startswith(pattern)


def _applies(s: Suppression, d: Diagnostic, path: str) -> bool:
    if d.location is None or d.location.path != path:
        return s.file_wide
    return s.file_wide or d.location.line in (s.line, s.line + 1)


def apply(path: str, text: str, diagnostics: list[Diagnostic], known: set[str], enabled: set[str],
          unused: Callable[[FileLocation, list[str]], Diagnostic] | None) -> tuple[list[Diagnostic], int]:
    """Drop suppressed diagnostics; add one `unused(where, codes)` finding per comment with unused
    (or unknown) codes when that rule is selected. Returns (kept, number suppressed)."""
    found = find(text)
    used: set[tuple[int, int, str]] = set()
    kept: list[Diagnostic] = []
    dropped = 0
    for d in diagnostics:
        hit = None
        for s in found:
            for pattern in s.codes:
                if _covers(d.code, pattern) and _applies(s, d, path):
                    hit = (s.line, s.column, pattern)
                    break
            if hit:
                break
        if hit:
            used.add(hit)
            dropped += 1
        else:
            kept.append(d)
    if unused is None:
        return kept, dropped
    for s in found:
        stale = []
        for pattern in s.codes:
            if not _CODE.match(pattern) or (pattern != "ALL" and not any(c.startswith(pattern) for c in known)):
                stale.append(f"{pattern} (unknown code)")
            elif (s.line, s.column, pattern) not in used and (pattern == "ALL" or any(
                    c.startswith(pattern) for c in enabled)):
                stale.append(pattern)
        if stale:
            kept.append(unused(FileLocation(path, s.line, s.column), stale))
    return kept, dropped
