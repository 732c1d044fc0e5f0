"""inputs: the entry points: read a launch file of any kind, or take a command as argv."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from flagscan.inputs.launcher import is_assignment
from flagscan.inputs.model import KINDS, NO_LAUNCH, InputError, LaunchCommand, Source, Word
from flagscan.inputs.shell import ShellReader, read_shell
from flagscan.inputs.systemd import read_unit
from flagscan.inputs.text import read_source

if TYPE_CHECKING:
    from yaml.nodes import Node

_UNIT_SUFFIXES = (".service",)
_YAML_SUFFIXES = (".yaml", ".yml")
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh")
_SECTION = re.compile(r"^\s*\[(Service|Unit|Install)\]\s*$", re.M)
_YAML_TOP = re.compile(r"^(services|apiVersion|version|kind)\s*:", re.M)
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def detect_kind(source: Source) -> str:
    """Guess the kind from the name, then the content; plain commands read as shell."""
    path = Path(source.path)
    suffix = path.suffix.lower()
    if suffix in _UNIT_SUFFIXES or (suffix == ".conf" and path.parent.name.endswith(".service.d")):
        return "systemd"
    if suffix in _YAML_SUFFIXES:
        return "yaml"
    if suffix in _SHELL_SUFFIXES or source.text.startswith("#!"):
        return "shell"
    if _SECTION.search(source.text):
        return "systemd"
    if _YAML_TOP.search(source.text):
        return "yaml"
    return "plain"


def _read_yaml(source: Source, kind: str | None) -> list[LaunchCommand]:
    from flagscan.inputs import compose, k8s, yamlsrc  # PyYAML only for a YAML input

    documents: list[Node] = yamlsrc.compose_documents(source)
    if kind == "compose" or (kind is None and any(compose.is_compose(d) for d in documents)):
        return compose.read_compose(source, documents)
    if kind == "k8s" or (kind is None and any(k8s.is_manifest(d) for d in documents)):
        return k8s.read_k8s(source, documents)
    return []


def read_launch_file(path: str | Path, kind: str | None = None) -> list[LaunchCommand]:
    """Every SGLang launch command in a systemd unit, shell script, compose file, Kubernetes
    manifest or plain command file. `kind` is one of KINDS, or None to detect it."""
    if kind is not None and kind not in KINDS:
        raise InputError(f"{path}: unknown launch file kind {kind!r} (expected one of {', '.join(KINDS)})")
    return read_launch_source(read_source(path), kind)


def read_launch_source(source: Source, kind: str | None = None) -> list[LaunchCommand]:
    """read_launch_file() on text already read (stdin, or a file's text after an edit); the
    source's path still names the file (its drop-ins, env files and suffix)."""
    if kind is not None and kind not in KINDS:
        raise InputError(f"{source.path}: unknown launch file kind {kind!r} (expected one of {', '.join(KINDS)})")
    guessed = detect_kind(source) if kind is None else kind
    if guessed == "systemd":
        commands = read_unit(source)
    elif guessed in ("yaml", "compose", "k8s"):
        commands = _read_yaml(source, None if guessed == "yaml" else guessed)
    else:
        commands = read_shell(source, bare_args=guessed in ("plain", "argv"),
                              kind="argv" if guessed == "argv" else "shell")
    if not commands:
        raise InputError(f"{source.path}: {NO_LAUNCH}")
    return commands


def command_from_argv(argv: Sequence[str]) -> LaunchCommand:
    """A command given as argv (after `--`): with a launcher (`python -m sglang.launch_server
    ...`, `sglang serve ...`, `VAR=x` prefixes allowed) or as the server arguments alone."""
    argv = [str(a) for a in argv]
    source = Source.of("<argv>", " ".join(argv))
    words: list[Word] = []
    offset = 0
    for text in argv:
        names = tuple(dict.fromkeys(_REFERENCE.findall(text)))
        words.append(Word(text, tuple(range(offset, offset + len(text))), offset, source, names, offset + len(text)))
        offset += len(text) + 1
    env: dict[str, str] = {}
    while words and (pair := is_assignment(words[0].text)) is not None and not words[0].text.startswith("-"):
        env[pair[0]] = pair[1]
        words.pop(0)
    reader = ShellReader(source, kind="argv")
    reader.launch(words, env, 0, bare_args=True)
    if not reader.commands:
        raise InputError(f"<argv>: {NO_LAUNCH}")
    return reader.commands[0]
