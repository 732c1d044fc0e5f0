"""inputs: variable substitution on located words (compose `${VAR}`, Kubernetes `$(VAR)`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from flagscan.inputs.model import Word
from flagscan.inputs.shell import ShellState, expand_word
from flagscan.inputs.shlex_pos import split_commands

_COMPOSE = re.compile(
    r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))"
)
_KUBE = re.compile(r"\$(?:(\$)|\(([-._a-zA-Z][-._a-zA-Z0-9]*)\))")


class _Builder:
    def __init__(self, word: Word) -> None:
        self.word = word
        self.chars: list[str] = []
        self.offs: list[int] = []
        self.unresolved: list[str] = list(word.unresolved)
        self.refs: dict[int, str] = {}

    def copy(self, begin: int, end: int) -> None:
        self.chars.append(self.word.text[begin:end])
        self.offs.extend(self.word.offsets[begin:end])

    def insert(self, value: str, at: int) -> None:
        offset = self.word.offsets[at] if at < len(self.word.offsets) else self.word.start
        self.chars.append(value)
        self.offs.extend([offset] * len(value))

    def unknown(self, name: str, begin: int, end: int) -> None:
        self.unresolved.append(name)
        if begin < len(self.word.offsets):
            self.refs[self.word.offsets[begin]] = name
        self.copy(begin, end)

    def done(self) -> Word:
        w = self.word
        return w.rebuilt("".join(self.chars), tuple(self.offs), tuple(dict.fromkeys(self.unresolved)))


def _substitute(
    word: Word, pattern: re.Pattern[str], handle: Callable[[_Builder, re.Match[str]], None]
) -> tuple[Word, dict[int, str]]:
    builder = _Builder(word)
    pos = 0
    for match in pattern.finditer(word.text):
        builder.copy(pos, match.start())
        handle(builder, match)
        pos = match.end()
    builder.copy(pos, len(word.text))
    return builder.done(), builder.refs


def compose_interpolate(word: Word, variables: Mapping[str, str], notes: list[str]) -> tuple[Word, dict[int, str]]:
    """Compose interpolation (compose-spec "Interpolation"): `$$` is `$`; unknown variables stay
    as written; `${VAR:-default}` uses the default when VAR is not in `.env` (noted)."""

    def handle(b: _Builder, m: re.Match[str]) -> None:
        if m.group(1):
            b.insert("$", m.start())
            return
        name = m.group(2) or m.group(5)
        op, arg = m.group(3), m.group(4) or ""
        value = variables.get(name)
        if op is None:
            if value is None:
                b.unknown(name, m.start(), m.end())
            else:
                b.insert(value, m.start())
            return
        if value is None:
            notes.append(f"${name} is not in .env; assumed unset on the host")
        # the variable's value when it counts as set for this operator (`:` also refuses empty)
        set_value = value if value is not None and (value != "" or ":" not in op) else None
        if op[-1] == "-":
            inner = compose_interpolate(Word.plain(arg, 0, word.source), variables, notes)[0]
            b.insert(set_value if set_value is not None else inner.text, m.start())
        elif op[-1] == "+":
            inner = compose_interpolate(Word.plain(arg, 0, word.source), variables, notes)[0]
            b.insert(inner.text if set_value is not None else "", m.start())
        elif set_value is not None:
            b.insert(set_value, m.start())
        else:
            b.unknown(name, m.start(), m.end())

    return _substitute(word, _COMPOSE, handle)


def kube_expand(word: Word, env: Mapping[str, str | None]) -> Word:
    """Kubernetes dependent variables: `$(VAR)` from the container's env, `$$` is `$`, and an
    unresolvable reference is left unchanged (kubernetes.io, "Define Dependent Environment Variables")."""

    def handle(b: _Builder, m: re.Match[str]) -> None:
        if m.group(1):
            b.insert("$", m.start())
            return
        value = env.get(m.group(2))
        if value is None:
            b.unknown(m.group(2), m.start(), m.end())
        else:
            b.insert(value, m.start())

    return _substitute(word, _KUBE, handle)[0]


def split_words(word: Word, refs: Mapping[int, str] | None = None) -> list[Word]:
    """Split a command string into words with shell quoting but no expansion (what compose
    does with a string `command:`); words keep the unresolved names found in them."""
    commands = split_commands(word.text, word.offsets)
    if not commands:
        return []
    state = ShellState()
    out: list[Word] = []
    for raw in commands[0].words:
        for piece in expand_word(raw, state, word.source, literal=True):
            names = [refs[o] for o in piece.offsets if refs and o in refs]
            unresolved = tuple(dict.fromkeys([*piece.unresolved, *names]))
            out.append(piece.rebuilt(piece.text, piece.offsets, unresolved))
    return out
