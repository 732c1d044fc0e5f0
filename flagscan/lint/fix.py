"""lint: --fix/--diff: rewrite what can be rewritten without changing what the server runs.

Two edits exist: a deprecated option becomes its replacement when the replacement is
an exact flag (same destination, same shape, and the deprecated option is not a
no-op: turning an ignored option into a working one would change meaning); a flag
that is certainly a no-op on the target GPU (FS201) is removed with its values.
Every finding that is not fixed gets a note saying why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from flagscan.diagnostics import Diagnostic

_OPTION = re.compile(r"^--?[A-Za-z0-9][\w-]*$")


def replacement_for(inventory: Any, option: str) -> tuple[str | None, str]:
    """(new option, "") when `option` can be rewritten exactly, else (None, why not)."""
    by_option = inventory.by_option()
    old = by_option.get(option)
    if old is None or not old.deprecated:
        return None, f"{option} is not deprecated"
    new_text = (old.replacement or "").strip()
    if not new_text:
        return None, f"SGLang names no replacement for {option}"
    if not _OPTION.match(new_text) or new_text not in by_option:
        return None, f"the replacement {new_text!r} is not exactly one flag"
    new = by_option[new_text]
    if old.semantics == "ignore":
        return None, f"{option} has no effect; {new_text} would change what the server does"
    if new.deprecated or new.dest != old.dest or new.takes_value != old.takes_value:
        return None, f"{new_text} does not take {option}'s value the same way"
    return new_text, ""


def fix_text(text: str, diagnostics: Sequence[Diagnostic], contexts: Sequence[Any]) -> tuple[str, list[str]]:
    lines = text.splitlines(keepends=True)
    notes: list[str] = []
    removals: list[tuple[int, int, int]] = []   # (line, column, length) in 1-based line/column
    renames: list[tuple[int, int, str, str]] = []
    for d in diagnostics:
        loc = d.location
        if d.code not in ("FS002", "FS201") or loc is None or not d.flag:
            continue
        ctx = _context_for(contexts, loc)
        if ctx is None or loc.line > len(lines):
            continue
        if d.code == "FS002":
            new, why = replacement_for(ctx.inventory, d.flag)
            if new is None:
                notes.append(f"{loc.path}:{loc.line}: {d.flag} not rewritten: {why}")
                continue
            renames.append((loc.line, loc.column, d.flag, new))
        else:
            span = _token_span(ctx, loc)
            if span is None:
                notes.append(f"{loc.path}:{loc.line}: {d.flag} not removed: its value is on another line")
                continue
            removals.append(span)
    for line, column, old, new in sorted(renames, reverse=True):
        current = lines[line - 1]
        start = column - 1
        if current[start:start + len(old)] == old:
            lines[line - 1] = current[:start] + new + current[start + len(old):]
        else:
            notes.append(f"{line}: {old} not rewritten: it is not written literally there")
    for line, column, length in sorted(removals, reverse=True):
        lines = _remove(lines, line, column, length, notes)
    return "".join(lines), notes


def _context_for(contexts: Sequence[Any], loc) -> Any:
    for ctx in contexts:
        for tok in ctx.command.args:
            if tok.line == loc.line and tok.column == loc.column:
                return ctx
    return None


def _token_span(ctx: Any, loc) -> tuple[int, int, int] | None:
    """The option word and its values, when they sit on one line."""
    args = list(ctx.command.args)
    index = next(i for i, t in enumerate(args) if t.line == loc.line and t.column == loc.column)
    end = index + 1
    while end < len(args) and not args[end].text.startswith("-"):
        end += 1
    words = args[index:end]
    if any(w.line != loc.line for w in words):
        return None
    last = words[-1]
    return loc.line, loc.column, last.column + len(last.text) - loc.column


def _remove(lines: list[str], line: int, column: int, length: int, notes: list[str]) -> list[str]:
    current = lines[line - 1]
    start, stop = column - 1, column - 1 + length
    rest = current[:start] + current[stop:]
    if rest.strip() in ("\\", ""):
        if rest.strip() == "" and line >= 2 and lines[line - 2].rstrip().endswith("\\"):
            # The removed word ended the command: the line before must stop continuing.
            prev = lines[line - 2].rstrip("\r\n").rstrip()
            lines[line - 2] = prev[:-1].rstrip() + "\n"
        return lines[:line - 1] + lines[line:]
    while stop < len(current) and current[stop] == " ":
        stop += 1
    lines[line - 1] = current[:start] + current[stop:]
    return lines


def unified(path: str, before: str, after: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}"))
