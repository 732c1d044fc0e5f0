"""inputs: shell scripts and one-line commands -> SGLang launch commands (POSIX sh semantics)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from flagscan.inputs.launcher import Launch, ShellScript, find_launch, is_name
from flagscan.inputs.model import InputError, LaunchCommand, Source, Word
from flagscan.inputs.shlex_pos import Lit, Param, RawWord, split_commands

_RESERVED = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "fi", "done", "esac"})
_DECLARE = frozenset({"export", "readonly", "declare", "typeset", "local"})
_ASSIGN_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SIMPLE_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_IFS = " \t\n"
MAX_DEPTH = 4


@dataclass(slots=True)
class ShellState:
    """Variables the script has set so far; a value of None means "set, value unknown"."""

    values: dict[str, str | None] = field(default_factory=dict)
    exported: set[str] = field(default_factory=set)
    allexport: bool = False
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ShellState:
        return cls(dict(env), set(env))

    def assign(self, name: str, value: str | None, export: bool = False) -> None:
        self.values[name] = value
        if export or self.allexport:
            self.exported.add(name)

    def environment(self) -> dict[str, str]:
        return {k: v for k, v in self.values.items() if k in self.exported and v is not None}

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def _simple_expand(text: str, state: ShellState) -> tuple[str | None, tuple[str, ...]]:
    """Expand the word of `${X:-word}`: quotes removed, `$NAME` / `${NAME}` replaced."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        value = state.values.get(name)
        if value is None:
            missing.append(name)
            return match.group(0)
        return value

    out = _SIMPLE_REF.sub(replace, text)
    return (None, tuple(missing)) if missing else (out, ())


def _param(p: Param, state: ShellState) -> tuple[str | None, tuple[str, ...]]:
    """The value of one parameter expansion, or None and the names left unresolved."""
    if not p.plain or not is_name(p.name):
        return None, (p.name,)
    known = p.name in state.values
    value = state.values.get(p.name)
    if known and value is None:
        return None, (p.name,)
    op = p.op
    if op is None:
        return (value, ()) if known else (None, (p.name,))
    is_set = known and (value != "" or ":" not in op)
    if op[-1] in "-=":
        if is_set:
            return value, ()
        if not known:
            state.note(f"${p.name} is not set in the file; its default is assumed")
        default, missing = _simple_expand(p.arg, state)
        if op[-1] == "=" and default is not None:
            state.assign(p.name, default)
        return default, missing
    if op[-1] == "+":
        if not known:
            state.note(f"${p.name} is not set in the file; assumed unset")
        return _simple_expand(p.arg, state) if is_set else ("", ())
    return (value, ()) if is_set else (None, (p.name,))


class _Fields:
    """Builds the fields of one word, splitting unquoted expansions on IFS (POSIX 2.6.5)."""

    def __init__(self, raw: RawWord, source: Source, split: bool) -> None:
        self.source, self.split, self.start = source, split, raw.start
        self.end = raw.end
        self.out: list[Word] = []
        self.chars: list[str] = []
        self.offs: list[int] = []
        self.unresolved: list[str] = []
        self.forced = False
        self.field_start: int | None = None

    def add(self, text: str, offsets: Sequence[int], forced: bool = False) -> None:
        if self.field_start is None and (text or forced):
            self.field_start = self.start if not self.out else (offsets[0] if offsets else self.start)
        self.chars.append(text)
        self.offs.extend(offsets)
        self.forced = self.forced or forced

    def close(self) -> None:
        text = "".join(self.chars)
        if text or self.forced:
            start = self.field_start if self.field_start is not None else self.start
            self.out.append(Word(text, tuple(self.offs), start, self.source, tuple(dict.fromkeys(self.unresolved)),
                                 self.end))
        self.chars, self.offs, self.unresolved, self.forced, self.field_start = [], [], [], False, None

    def expansion(self, value: str, offset: int, quoted: bool) -> None:
        if quoted or not self.split:
            self.add(value, [offset] * len(value), forced=quoted)
            return
        if not value:
            return
        pieces = value.split()
        if value[0] in _IFS:
            self.close()
        for k, piece in enumerate(pieces):
            if k:
                self.close()
            self.add(piece, [offset] * len(piece))
        if value[-1] in _IFS and pieces:
            self.close()


def expand_word(
    raw: RawWord, state: ShellState, source: Source, split: bool = True, literal: bool = False
) -> list[Word]:
    """The fields a word expands to. `literal`: `$` has no meaning (the text is not run by a shell)."""
    fields = _Fields(raw, source, split)
    for part in raw.parts:
        if isinstance(part, Lit):
            fields.add(part.text, part.offsets, forced=part.quoted)
            continue
        if literal:
            fields.add(part.source, [part.offset] * len(part.source), forced=True)
            continue
        value, missing = _param(part, state) if isinstance(part, Param) else (None, ("$(...)",))
        if value is None:
            text = part.source
            fields.add(text, [part.offset] * len(text), forced=True)
            fields.unresolved.extend(missing or ("$(...)",))
        else:
            fields.unresolved.extend(missing)
            fields.expansion(value, part.offset, part.quoted)
    fields.close()
    return fields.out


def _assignment(raw: RawWord) -> tuple[str, RawWord] | None:
    first = raw.parts[0] if raw.parts else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    match = _ASSIGN_HEAD.match(first.text)
    if match is None:
        return None
    cut = match.end()
    rest = Lit(first.text[cut:], first.offsets[cut:], False)
    value = RawWord([rest, *raw.parts[1:]], first.offsets[cut] if cut < len(first.offsets) else raw.start, raw.quoted)
    return match.group(1), value


def _value(raw: RawWord, state: ShellState, source: Source) -> str | None:
    words = expand_word(raw, state, source, split=False)
    if not words:
        return ""
    return None if words[0].unresolved else words[0].text


def _declare(words: list[RawWord], state: ShellState, source: Source) -> None:
    head = words[0].literal()
    export = head == "export"
    for raw in words[1:]:
        literal = raw.literal()
        if literal is not None and literal.startswith("-"):
            export = export or (head in ("declare", "typeset") and "x" in literal)
            continue
        pair = _assignment(raw)
        if pair is not None:
            state.assign(pair[0], _value(pair[1], state, source), export)
        elif literal is not None and is_name(literal) and export:
            state.exported.add(literal)


@dataclass(slots=True)
class ShellReader:
    source: Source
    kind: str = "shell"
    bare_args: bool = False
    commands: list[LaunchCommand] = field(default_factory=list)
    first_error: str | None = None

    def read(self, text: str, offsets: tuple[int, ...] | None, env: Mapping[str, str], depth: int = 0) -> None:
        state = ShellState.from_env(env)
        for command in split_commands(text, offsets):
            words = list(command.words)
            while words and words[0].literal() in _RESERVED:
                words.pop(0)
            if not words:
                continue
            prefix: dict[str, str | None] = {}
            while words and (pair := _assignment(words[0])) is not None:
                prefix[pair[0]] = _value(pair[1], state, self.source)
                words.pop(0)
            if not words:
                for name, value in prefix.items():
                    state.assign(name, value)
                continue
            head = words[0].literal()
            if head in _DECLARE:
                _declare(words, state, self.source)
                continue
            if head == "unset":
                for raw in words[1:]:
                    state.values.pop(raw.literal() or "", None)
                continue
            if head == "set" and len(words) > 1 and words[1].literal() in ("-a", "+a"):
                state.allexport = words[1].literal() == "-a"
                continue
            expanded = [w for raw in words for w in expand_word(raw, state, self.source)]
            env = state.environment()
            env.update({k: v for k, v in prefix.items() if v is not None})
            found = self.launch(expanded, env, depth, bare_args=self.bare_args, notes=tuple(state.notes))
            if command.error:
                where = self.source.line_of(command.error_offset)
                message = f"{self.source.path}:{where}: {command.error}"
                if found:
                    raise InputError(message)
                self.first_error = self.first_error or message

    def launch(
        self, words: Sequence[Word], env: Mapping[str, str], depth: int, *,
        bare_args: bool, notes: tuple[str, ...] = (),
    ) -> bool:
        """Record the launch in `words` (reading `sh -c SCRIPT` as shell); True if one was found."""
        found = find_launch(words, env, bare_args=bare_args)
        if isinstance(found, ShellScript):
            if depth >= MAX_DEPTH:
                return False
            before = len(self.commands)
            script = found.script
            self.read(script.text, script.offsets, found.env, depth + 1)
            return len(self.commands) > before
        if isinstance(found, Launch):
            line = self.source.line_of(words[0].start) if words else 1
            notes = (*notes, *found.notes)
            self.commands.append(LaunchCommand(
                self.source.path, line, self.kind, found.launcher,
                tuple(w.token() for w in found.args), dict(found.env), notes,
            ))
            return True
        return False


def read_shell(
    source: Source, env: Mapping[str, str] | None = None, *, kind: str = "shell", bare_args: bool = False
) -> list[LaunchCommand]:
    """Every SGLang launch in a shell script or plain command file. `bare_args`: a command
    made of options only is taken as server arguments (a file holding just the flags)."""
    reader = ShellReader(source, kind, bare_args)
    reader.read(source.text, None, env or {})
    if not reader.commands and reader.first_error:
        raise InputError(reader.first_error)
    return reader.commands
