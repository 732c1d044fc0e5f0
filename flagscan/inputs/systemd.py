"""inputs: systemd service units -> SGLang launch commands (systemd.service, systemd.exec)."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping
from pathlib import Path

from flagscan.inputs.envfile import load_env_file
from flagscan.inputs.launcher import is_name
from flagscan.inputs.model import InputError, LaunchCommand, Source, Word
from flagscan.inputs.shell import ShellReader
from flagscan.inputs.text import read_source
from flagscan.inputs.unitfile import Entry, WordError, extract_word, extract_word_and_warn, parse_unit

# Specifiers that need the running system (hostname, user, boot id...): left as written.
_MACHINE_SPECIFIERS = frozenset("aAbBdgGhHlmMoqsuUvwW")
_PREFIXES = "-@:+!|"
_BRACELESS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _unescape_unit(text: str) -> str:
    """systemd's unit_name_unescape() as used by %I, %J, %f: `-` is `/`, `\\xNN` a byte."""
    text = text.replace("-", "/")
    return re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _specifier_table(unit_path: str) -> dict[str, str]:
    name = os.path.basename(unit_path)
    stem = name.rsplit(".", 1)[0] if "." in name else name
    prefix, _, rest = stem.partition("@")
    instance = rest if "@" in stem else ""
    final = prefix.rsplit("-", 1)[-1]
    absolute = os.path.abspath(unit_path)
    return {
        "n": name, "N": stem, "p": prefix, "P": _unescape_unit(prefix), "i": instance,
        "I": _unescape_unit(instance), "j": final, "J": _unescape_unit(final),
        "f": "/" + _unescape_unit(instance or prefix).lstrip("/"),
        "y": absolute, "Y": os.path.dirname(absolute),
        # The system manager's directories (systemd.unit, "Specifiers").
        "t": "/run", "S": "/var/lib", "C": "/var/cache", "L": "/var/log", "E": "/etc",
        "T": "/tmp", "V": "/var/tmp",
    }


def resolve_specifiers(word: Word, table: Mapping[str, str], notes: list[str]) -> Word:
    """Replace `%x` specifiers; unknown or machine-dependent ones stay as written."""
    if "%" not in word.text:
        return word
    chars: list[str] = []
    offs: list[int] = []
    unresolved = list(word.unresolved)
    text, i = word.text, 0
    while i < len(text):
        c = text[i]
        if c != "%" or i + 1 >= len(text):
            chars.append(c)
            offs.append(word.offsets[i])
            i += 1
            continue
        spec = text[i + 1]
        value = "%" if spec == "%" else table.get(spec)
        if value is None:
            value = text[i:i + 2]
            unresolved.append(value)
            if spec not in _MACHINE_SPECIFIERS:
                notes.append(f"unknown specifier {value!r}: systemd refuses this setting")
        chars.append(value)
        offs.extend([word.offsets[i]] * len(value))
        i += 2
    return word.rebuilt("".join(chars), tuple(offs), tuple(dict.fromkeys(unresolved)))


def _expand_braces(word: Word, env: Mapping[str, str], notes: list[str]) -> Word:
    """replace_env() without extensions: `${NAME}` anywhere in a word, `$$` is a `$`."""
    text = word.text
    chars: list[str] = []
    offs: list[int] = []
    unresolved = list(word.unresolved)
    i = 0
    while i < len(text):
        if text.startswith("$$", i):
            chars.append("$")
            offs.append(word.offsets[i])
            i += 2
            continue
        if text.startswith("${", i):
            end = text.find("}", i + 2)
            name = text[i + 2:end] if end >= 0 else ""
            if end >= 0 and ":" not in name and name in env:
                value = env[name]
                chars.append(value)
                offs.extend([word.offsets[i]] * len(value))
                i = end + 1
                continue
            if end >= 0:
                if ":" in name:
                    notes.append(f"systemd does not expand {text[i:end + 1]!r} in ExecStart= (no :- or :+)")
                unresolved.append(name.split(":", 1)[0])
        elif text[i] == "$" and (match := _BRACELESS.match(text, i + 1)) is not None:
            # `$NAME` is only expanded as a word of its own; inside a word it stays literal.
            notes.append(f"systemd passes {text[i:match.end()]!r} literally: write ${{{match.group(0)}}} inside a word")
            unresolved.append(match.group(0))
        chars.append(text[i])
        offs.append(word.offsets[i])
        i += 1
    return word.rebuilt("".join(chars), tuple(offs), tuple(dict.fromkeys(unresolved)))


def expand_argv(words: list[Word], env: Mapping[str, str], notes: list[str]) -> list[Word]:
    """replace_env_argv(): a word that is exactly `$NAME` becomes the value split at whitespace
    (quotes respected, then removed); `${NAME}` inside any word is replaced verbatim."""
    out: list[Word] = []
    for word in words:
        text = word.text
        if text.startswith("$") and text[1:2] not in ("{", "$"):
            name = text[1:]
            if not is_name(name):
                notes.append(f"systemd drops the argument {text!r}: {name!r} is not a variable name")
                continue
            if name not in env:
                out.append(word.rebuilt(text, word.offsets, (*word.unresolved, name)))
                continue
            value = Word.plain(env[name], word.start, word.source, step=0)
            p = 0
            while True:
                try:
                    piece, p = extract_word(value, p, cunescape=False, relax=True, allow_unbalanced=True)
                except WordError:
                    break
                if piece is None:
                    break
                out.append(word.rebuilt(piece.text, piece.offsets))
            continue
        out.append(_expand_braces(word, env, notes))
    return out


class _Unit:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.specifiers = _specifier_table(source.path)
        self.notes: list[str] = []
        self.exec_lines: list[Entry] = []
        self.environment: dict[str, str] = {}
        self.env_files: list[tuple[str, Entry]] = []
        self.unset: list[str] = []
        self.saw_exec = False

    def apply(self, entries: list[Entry]) -> None:
        for entry in entries:
            if entry.section != "Service":
                continue
            if entry.key == "ExecStart":
                self.saw_exec = True
                if entry.value.text:
                    self.exec_lines.append(entry)
                else:
                    self.exec_lines.clear()  # an empty assignment resets the list
            elif entry.key == "Environment":
                self._environment(entry)
            elif entry.key == "EnvironmentFile":
                if entry.value.text:
                    self.env_files.append((resolve_specifiers(entry.value, self.specifiers, self.notes).text, entry))
                else:
                    self.env_files.clear()
            elif entry.key == "UnsetEnvironment":
                if not entry.value.text:
                    self.unset.clear()
                self.unset.extend(entry.value.text.split())

    def _environment(self, entry: Entry) -> None:
        if not entry.value.text:
            self.environment.clear()
            return
        p = 0
        while True:
            try:
                word, p = extract_word(entry.value, p, relax=True)
            except WordError:
                self.notes.append(f"{self.source.path}:{entry.line}: invalid Environment= syntax; the rest is ignored")
                return
            if word is None:
                return
            word = resolve_specifiers(word, self.specifiers, self.notes)
            name, eq, value = word.text.partition("=")
            if eq and is_name(name):
                self.environment[name] = value
            else:
                self.notes.append(f"{self.source.path}:{entry.line}: systemd ignores invalid assignment {word.text!r}")

    def final_environment(self) -> dict[str, str]:
        env = dict(self.environment)
        # EnvironmentFile= is read at start and overrides Environment= (systemd.exec).
        for spec, _entry in self.env_files:
            optional = spec.startswith("-")
            path = spec[1:] if optional else spec
            base = os.path.dirname(self.source.path)
            if not os.path.isabs(path):
                self.notes.append(f"EnvironmentFile={path} is not absolute; systemd rejects it (read next to the unit)")
                path = os.path.join(base, path)
            matches = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
            found = [m for m in matches if os.path.isfile(m)]
            if not found:
                local = os.path.join(base, os.path.basename(path))
                found = [local] if os.path.isabs(spec.lstrip("-")) and os.path.isfile(local) else []
                if found:
                    self.notes.append(f"EnvironmentFile={path} read from {local}")
            if not found and not optional:
                self.notes.append(f"EnvironmentFile={path} not found here; systemd will not start the unit without it")
            for match in found:
                env.update(load_env_file(read_source(match)))
        for item in self.unset:
            name, eq, value = item.partition("=")
            if not eq or env.get(name) == value:
                env.pop(name, None)
        return env


def _drop_ins(path: str) -> list[str]:
    directory = path + ".d"
    if not os.path.isdir(directory):
        return []
    return sorted(glob.glob(os.path.join(glob.escape(directory), "*.conf")), key=os.path.basename)


def _split_exec(entry: Entry, unit: _Unit) -> list[tuple[list[Word], bool]]:
    """config_parse_exec(): one or more commands (`;` as a word separates them), each with
    whether environment expansion applies (the `:` prefix turns it off)."""
    value, p = entry.value, 0
    commands: list[tuple[list[Word], bool]] = []
    text = value.text
    while True:
        first, p = extract_word_and_warn(value, p, unit.notes, entry.line)
        if first is None:
            return commands
        k = 0
        while k < len(first.text) and first.text[k] in _PREFIXES:
            k += 1
        prefixes = first.text[:k]
        words = [first.slice(k)]
        semicolon = False
        while p < len(text):
            while p < len(text) and text[p] in " \t\n\r":
                p += 1
            if text.startswith(";", p) and (p + 1 >= len(text) or text[p + 1] in " \t\n\r"):
                p, semicolon = p + 1, True
                break
            if text.startswith("\\;", p) and (p + 2 >= len(text) or text[p + 2] in " \t\n\r"):
                words.append(Word(";", (value.offsets[p],), value.offsets[p], value.source, (),
                                  value.offsets[p + 1] + 1))
                p += 2
                continue
            word, p = extract_word_and_warn(value, p, unit.notes, entry.line)
            if word is None:
                break
            words.append(word)
        words = [resolve_specifiers(w, unit.specifiers, unit.notes) for w in words]
        if "@" in prefixes and len(words) > 1:
            words = [words[0], *words[2:]]  # argv[0] is the second word; the path stays first
        commands.append((words, ":" not in prefixes))
        if not semicolon:
            return commands


def read_unit(source: Source) -> list[LaunchCommand]:
    """Every SGLang launch among a unit's ExecStart= lines (drop-ins in `<unit>.d/` included)."""
    unit = _Unit(source)
    unit.apply(parse_unit(source))
    for path in _drop_ins(source.path):
        unit.apply(parse_unit(read_source(path)))
    if not unit.exec_lines:
        reason = "every ExecStart= is reset by an empty assignment" if unit.saw_exec else "no ExecStart= in [Service]"
        raise InputError(f"{source.path}: not a runnable service unit ({reason})")
    env = unit.final_environment()
    commands: list[LaunchCommand] = []
    for entry in unit.exec_lines:
        for words, expand in _split_exec(entry, unit):
            notes: list[str] = []
            if expand:
                words = expand_argv(words, env, notes)
            reader = ShellReader(entry.value.source, kind="systemd")
            reader.launch(words, env, 0, bare_args=False, notes=tuple(unit.notes + notes))
            commands.extend(reader.commands)
    return commands


def read_unit_path(path: str | Path) -> list[LaunchCommand]:
    return read_unit(read_source(path))
