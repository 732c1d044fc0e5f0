"""inputs: find the SGLang launcher in one command's words and split off its server arguments."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from flagscan.inputs.model import Word

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.S)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"})
# Commands whose arguments merely mention a launcher; never a launch themselves.
_NOT_LAUNCHES = frozenset({
    "echo", "printf", ":", "true", "false", "test", "[", "[[", "pkill", "pgrep", "kill",
    "killall", "grep", "logger", "cat", "which", "type", "command", "hash", "alias",
})
_PASS_THROUGH = frozenset({"nohup", "setsid", "time", "builtin"})


@dataclass(frozen=True, slots=True)
class Launch:
    launcher: tuple[str, ...]
    args: tuple[Word, ...]
    env: dict[str, str] = field(hash=False)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ShellScript:
    """`sh -c SCRIPT`: the script must be read as shell before a launcher can be seen."""

    script: Word
    env: dict[str, str] = field(hash=False)


def basename(text: str) -> str:
    return text.rsplit("/", 1)[-1]


def is_assignment(text: str) -> tuple[str, str] | None:
    match = _ASSIGNMENT.match(text)
    return (match.group(1), match.group(2)) if match else None


def is_name(text: str) -> bool:
    return bool(_NAME.match(text))


def _strip_env(words: Sequence[Word], i: int, env: dict[str, str]) -> int:
    """Consume `env [-i] [-u NAME] [NAME=VALUE...]` starting after the `env` word."""
    while i < len(words):
        text = words[i].text
        if text in ("-i", "--ignore-environment", "-"):
            env.clear()
        elif text in ("-u", "--unset", "-C", "--chdir") and i + 1 < len(words):
            if text in ("-u", "--unset"):
                env.pop(words[i + 1].text, None)
            i += 1
        elif text.startswith("--unset="):
            env.pop(text.split("=", 1)[1], None)
        elif text.startswith("-u") and len(text) > 2:
            env.pop(text[2:], None)
        elif text == "--":
            return i + 1
        elif text in ("-0", "--null", "-v", "--debug"):
            pass
        elif (pair := is_assignment(text)) is not None:
            env[pair[0]] = pair[1]
        else:
            return i
        i += 1
    return i


def _strip_wrappers(words: Sequence[Word], env: dict[str, str]) -> int:
    i = 0
    while i < len(words):
        head = basename(words[i].text)
        if head == "exec":
            i += 1
            while i < len(words) and words[i].text in ("-c", "-l", "-a"):
                i += 2 if words[i].text == "-a" else 1
        elif head == "env":
            i = _strip_env(words, i + 1, env)
        elif head in _PASS_THROUGH:
            i += 1
        else:
            return i
    return i


def _launcher_end(words: Sequence[Word], start: int) -> int | None:
    """Where the launcher ends: the programs of rules/programs.toml (flagscan/inputs/programs.py)."""
    from flagscan.inputs.programs import launcher_end

    found = launcher_end(words, start)
    return found[0] if found is not None else None


def find_launch(
    words: Sequence[Word], env: Mapping[str, str], *, bare_args: bool = False
) -> Launch | ShellScript | None:
    """The SGLang launch in `words` (already expanded), or a shell script to read, or None.

    `bare_args`: the words may be server arguments alone (a container whose image
    runs SGLang), accepted when they start with an option.
    """
    env = dict(env)
    start = _strip_wrappers(words, env)
    if start >= len(words):
        return None
    head = basename(words[start].text)
    if head in _NOT_LAUNCHES:
        return None
    if head in _SHELLS:
        for j in range(start + 1, len(words) - 1):
            text = words[j].text
            if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", text):
                return ShellScript(words[j + 1], env)
            if not text.startswith("-"):
                break
    end = _launcher_end(words, start)
    if end is not None:
        launcher = tuple(w.text for w in words[start:end])
        notes: tuple[str, ...] = ()
        first = basename(launcher[0])
        if not (first.startswith("python") or first in ("sglang", "-m") or first.startswith("-m")):
            notes = (f"the server is started through {launcher[0]!r}; only the arguments after the launcher are read",)
        return Launch(launcher, tuple(words[end:]), env, notes)
    if bare_args and words[start].text.startswith("-"):
        return Launch((), tuple(words[start:]), env)
    return None
