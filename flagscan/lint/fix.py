"""lint: --fix/--diff: rewrite what can be rewritten without changing what the server runs.

Two edits exist: a deprecated option becomes its replacement when the replacement is
an exact flag (same destination, same shape, and the deprecated option is not a
no-op: turning an ignored option into a working one would change meaning); a flag
that is certainly a no-op on the target GPU (FS201) is removed with its values.

Edits are made on the tokens' source spans (flagscan.inputs gives every argument its
span, quotes included), with the syntax of the file around them: a YAML list item goes
with its line or its comma, a word on a continued line takes the continuation with it
when it was the last word. Every edit is then proved: the edited text is read again with
the same readers and must give exactly the old arguments minus what was removed (or with
the replacement). An edit that fails the proof is not made, and a note says why; every
finding that is not fixed gets a note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from flagscan.diagnostics import Diagnostic, FileLocation

if TYPE_CHECKING:
    from flagscan.facts.flags import Inventory
    from flagscan.inputs import LaunchCommand


class Fixing(Protocol):
    """What --fix reads of each command's context: the command, and the inventory it was parsed with
    (a lint Context, or the same two facts when the findings of several GPUs are fixed at once)."""

    @property
    def command(self) -> LaunchCommand: ...
    @property
    def inventory(self) -> Inventory: ...


_OPTION = re.compile(r"^--?[A-Za-z0-9][\w-]*$")
_BLOCK_ITEM = re.compile(r"^[ \t]*-[ \t]+$")
_SPACE = " \t"


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


@dataclass(frozen=True, slots=True)
class _Change:
    """One finding's edit: tokens (command index, argument index) removed or renamed."""

    where: str                              # "path:line: flag" for notes
    removed: tuple[tuple[int, int], ...] = ()
    renamed: tuple[tuple[int, int, str, str], ...] = ()   # (command, argument, old option, new option)

    @property
    def keys(self) -> set[tuple[int, int]]:
        return {*self.removed, *((c, a) for c, a, _o, _n in self.renamed)}


def fix_text(text: str, diagnostics: Sequence[Diagnostic], contexts: Sequence[Fixing]) -> tuple[str, list[str]]:
    """The text with every provable edit made, and a note for each finding left alone."""
    commands = [ctx.command for ctx in contexts]
    notes: list[str] = []
    changes: list[_Change] = []
    for d in diagnostics:
        loc = d.location
        if d.code not in ("FS002", "FS201") or loc is None or not d.flag:
            continue
        found = _token_at(commands, loc)
        if found is None:
            continue
        ci, ai = found
        ctx, token = contexts[ci], commands[ci].args[ai]
        where = f"{loc.path}:{loc.line}: {d.flag}"
        if d.code == "FS002":
            new, why = replacement_for(ctx.inventory, d.flag)
            if new is None:
                notes.append(f"{where} not rewritten: {why}")
                continue
            if not (token.text == d.flag or token.text.startswith(d.flag + "=")):
                notes.append(f"{where} not rewritten: the argument {token.text!r} does not spell it")
                continue
            changes.append(_Change(where, renamed=((ci, ai, d.flag, new),)))
        else:
            from flagscan.inputs.argv import option_words

            texts = [a.text for a in commands[ci].args]
            count = option_words(ctx.inventory, texts, ai) or 1
            changes.append(_Change(where, removed=tuple((ci, ai + k) for k in range(count))))
    accepted: list[_Change] = []
    taken: set[tuple[int, int]] = set()
    current = text
    # Removals first: a flag that goes needs no rename.
    for change in sorted(changes, key=lambda c: not c.removed):
        if change.keys & taken:
            continue
        verb = "removed" if change.removed else "rewritten"
        reason = _shared(commands, change)
        if reason is None:
            trial = _apply(text, commands, [*accepted, change])
            reason = trial.why if isinstance(trial, _Failed) else _prove(trial, commands, [*accepted, change])
            if reason is None and isinstance(trial, str):
                current = trial
                accepted.append(change)
                taken |= change.keys
                continue
        notes.append(f"{change.where} not {verb}: {reason}; the file is left as it is for this finding")
    return current, notes


def _token_at(commands: Sequence[Any], loc: FileLocation) -> tuple[int, int] | None:
    for ci, command in enumerate(commands):
        for ai, tok in enumerate(command.args):
            if tok.line == loc.line and tok.column == loc.column and tok.path == loc.path:
                return ci, ai
    return None


def _shared(commands: Sequence[Any], change: _Change) -> str | None:
    """Why the change's tokens cannot be edited alone (their text in the file gives other
    arguments too, or they have no span), or None."""
    mine = change.keys
    spans = [(t.start, t.end, (ci, ai)) for ci, c in enumerate(commands) for ai, t in enumerate(c.args)]
    for ci, ai in sorted(mine):
        tok = commands[ci].args[ai]
        if tok.start < 0 or tok.end <= tok.start:
            return f"{tok.text!r} has no place of its own in the file"
        for start, end, key in spans:
            if key not in mine and start < tok.end and tok.start < end:
                return f"{tok.text!r} comes from the same text in the file as {commands[key[0]].args[key[1]].text!r}"
    return None


@dataclass(frozen=True, slots=True)
class _Failed:
    why: str


def _apply(text: str, commands: Sequence[Any], changes: Sequence[_Change]) -> str | _Failed:
    """Every change's edits, made from the end of the file backwards so that earlier spans hold."""
    edits: list[tuple[int, int, Any]] = []
    for change in changes:
        for ci, ai in change.removed:
            tok = commands[ci].args[ai]
            edits.append((tok.start, tok.end, (tok, commands[ci].kind)))
        for ci, ai, old, new in change.renamed:
            tok = commands[ci].args[ai]
            edits.append((tok.start, tok.end, (old, new)))
    for start, end, what in sorted(edits, key=lambda e: e[0], reverse=True):
        if isinstance(what[0], str):
            old, new = what
            written = text[start:end]
            if written.count(old) != 1:
                return _Failed(f"{old} is not written literally once in {written!r}")
            text = text[:start] + written.replace(old, new) + text[end:]
            continue
        tok, kind = what
        done = _remove_item(text, start, end) if tok.item else _remove_word(text, start, end, kind == "systemd")
        if done is None:
            return _Failed(f"the list around {text[start:end]!r} has a shape flagscan does not edit")
        text = done
    return text


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    return first, len(text) if last < 0 else last


def _drop_line(text: str, first: int, last: int) -> str:
    return text[:first] + text[last + 1:] if last < len(text) else text[:max(first - 1, 0)] + ("\n" if first else "")


def _remove_word(text: str, start: int, end: int, systemd: bool) -> str:
    """Remove a shell/systemd/command-string word with the blanks that separated it."""
    first, last = _line_bounds(text, start, end)
    before, after = text[first:start], text[end:last]
    tail = after.strip(_SPACE)
    if not before.strip(_SPACE) and tail in ("", "\\"):
        text = _drop_line(text, first, last)
        if tail == "":
            # The word ended a continued command: the line before must stop continuing.
            text = _end_continuation(text, first, comments=systemd)
        return text
    if tail == "":
        left = start
        while left > first and text[left - 1] in _SPACE:
            left -= 1
        return text[:left] + text[last:]
    right = end
    while right < last and text[right] in _SPACE:
        right += 1
    if right > end:
        return text[:start] + text[right:]
    left = start
    while left > first and text[left - 1] in _SPACE:
        left -= 1
    return text[:left] + text[end:]


def _end_continuation(text: str, at: int, *, comments: bool) -> str:
    """Drop the `\\` that ends the line before offset `at` (systemd skips comment lines
    inside a continuation, so with `comments` those are stepped over)."""
    line_end = at - 1
    while line_end > 0:
        line_start = text.rfind("\n", 0, line_end) + 1
        line = text[line_start:line_end]
        if comments and line.lstrip(_SPACE).startswith(("#", ";")):
            line_end = line_start - 1
            continue
        stripped = line.rstrip(_SPACE)
        if stripped.endswith("\\") and (len(stripped) - len(stripped.rstrip("\\"))) % 2 == 1:
            kept = stripped[:-1].rstrip(_SPACE)
            return text[:line_start] + kept + text[line_end:]
        return text
    return text


def _remove_item(text: str, start: int, end: int) -> str | None:
    """Remove a YAML sequence item: a block item's whole line, a flow item with its comma."""
    first, last = _line_bounds(text, start, end)
    before, after = text[first:start], text[end:last].strip(_SPACE)
    if _BLOCK_ITEM.match(before):
        if after and not after.startswith("#"):
            return None
        return _drop_line(text, first, last)
    right = end
    while right < len(text) and text[right] in " \t\r\n":
        right += 1
    if right < len(text) and text[right] == ",":
        right += 1
        while right < len(text) and text[right] in _SPACE:
            right += 1
        return _tidy(text[:start] + text[right:], start)
    if right < len(text) and text[right] == "]":
        left = start
        while left > 0 and text[left - 1] in " \t\r\n":
            left -= 1
        if left > 0 and text[left - 1] == ",":
            return _tidy(text[:left - 1] + text[end:], left - 1)
        if left > 0 and text[left - 1] == "[":
            return text[:start] + text[end:]
    return None


def _tidy(text: str, at: int) -> str:
    """A line the edit left blank (a flow list written one item per line) goes."""
    first, last = _line_bounds(text, at, at)
    if text[first:last].strip(_SPACE) == "":
        return _drop_line(text, first, last)
    return text


def _prove(text: str, commands: Sequence[Any], changes: Sequence[_Change]) -> str | None:
    """None when `text` reads as exactly the expected commands, else why not."""
    from flagscan.inputs import InputError
    from flagscan.inputs.model import Source
    from flagscan.inputs.read import read_launch_source

    removed = {k for c in changes for k in c.removed}
    renamed = {(ci, ai): (old, new) for c in changes for ci, ai, old, new in c.renamed}
    path = commands[0].path if commands else "<text>"
    try:
        again = read_launch_source(Source.of(path, text))
    except InputError as exc:
        return f"the edited file would not read ({exc})"
    if len(again) != len(commands):
        return "the edited file would hold a different number of launch commands"
    for ci, (old, new) in enumerate(zip(commands, again)):
        want = []
        for ai, tok in enumerate(old.args):
            if (ci, ai) in removed:
                continue
            if (ci, ai) in renamed:
                was, now = renamed[(ci, ai)]
                want.append(now + tok.text[len(was):])
            else:
                want.append(tok.text)
        if tuple(new.launcher) != tuple(old.launcher) or [t.text for t in new.args] != want \
                or new.env != old.env:
            return "the edited file would not give exactly the other arguments"
    return None


def unified(path: str, before: str, after: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}"))
