"""inputs: docker-compose files -> SGLang launch commands (one per service that runs SGLang)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flagscan.inputs import yamlsrc
from flagscan.inputs.envfile import load_env_file
from flagscan.inputs.model import InputError, LaunchCommand, Source, Word
from flagscan.inputs.shell import ShellReader
from flagscan.inputs.subst import compose_interpolate, split_words
from flagscan.inputs.text import read_source

_SERVICE_KEYS = frozenset({"image", "build", "command", "entrypoint"})


def services(root: Node) -> list[tuple[str, MappingNode]]:
    """The service mappings: under `services:`, or at the top level (the version 1 format)."""
    table = yamlsrc.get(root, "services")
    if table is None:
        table = root
    return [
        (name, node) for name, node in yamlsrc.items(table)
        if isinstance(node, MappingNode) and any(k in _SERVICE_KEYS for k, _ in yamlsrc.items(node))
    ]


def is_compose(root: Node) -> bool:
    return isinstance(root, MappingNode) and bool(services(root))


class _Service:
    def __init__(self, node: MappingNode, source: Source, variables: Mapping[str, str]) -> None:
        self.node, self.source, self.variables = node, source, variables
        self.notes: list[str] = []

    def interpolate(self, word: Word) -> tuple[Word, dict[int, str]]:
        return compose_interpolate(word, self.variables, self.notes)

    def argv(self, key: str) -> list[Word] | None:
        """`command:` / `entrypoint:` as words: a list is taken item by item, a string is split
        with shell quoting rules (no shell runs it)."""
        node = yamlsrc.get(self.node, key)
        if node is None or yamlsrc.is_null(node):
            return None
        if isinstance(node, SequenceNode):
            out = []
            for item in yamlsrc.words(node, self.source) or []:
                out.append(self.interpolate(item)[0])
            return out
        if isinstance(node, ScalarNode):
            word, refs = self.interpolate(yamlsrc.scalar_word(node, self.source))
            return split_words(word, refs)
        raise InputError(f"{self.source.path}:{yamlsrc.line(node)}: `{key}:` must be a string or a list")

    def environment(self) -> dict[str, str]:
        env: dict[str, str] = {}
        files = yamlsrc.get(self.node, "env_file")
        paths = [yamlsrc.text(files)] if isinstance(files, ScalarNode) else [
            yamlsrc.text(yamlsrc.get(item, "path")) if isinstance(item, MappingNode) else yamlsrc.text(item)
            for item in (files.value if isinstance(files, SequenceNode) else [])
        ]
        for path in filter(None, paths):
            full = os.path.join(os.path.dirname(self.source.path), path)
            if os.path.isfile(full):
                env.update(load_env_file(read_source(full)))
            else:
                self.notes.append(f"env_file {path} not found here")
        node = yamlsrc.get(self.node, "environment")
        if isinstance(node, MappingNode):
            for key, item in yamlsrc.items(node):
                if isinstance(item, ScalarNode) and not yamlsrc.is_null(item):
                    env[key] = self.interpolate(yamlsrc.scalar_word(item, self.source))[0].text
        elif isinstance(node, SequenceNode):
            for item in node.value:
                entry = yamlsrc.text(item)
                if entry and "=" in entry:
                    word = self.interpolate(yamlsrc.scalar_word(item, self.source))[0]
                    name, _, value = word.text.partition("=")
                    env[name] = value
        return env


def read_compose(source: Source, documents: list[Node] | None = None) -> list[LaunchCommand]:
    documents = documents if documents is not None else yamlsrc.compose_documents(source)
    dotenv_path = os.path.join(os.path.dirname(source.path), ".env")
    variables = load_env_file(read_source(dotenv_path)) if os.path.isfile(dotenv_path) else {}
    commands: list[LaunchCommand] = []
    for root in documents:
        for _name, node in services(root):
            service = _Service(node, source, variables)
            image = yamlsrc.text(yamlsrc.get(node, "image")) or ""
            env = service.environment()
            entrypoint = service.argv("entrypoint")
            command = service.argv("command") or []
            words = [*(entrypoint or []), *command]
            if not words:
                continue
            reader = ShellReader(source, kind="compose")
            bare = entrypoint is None and "sglang" in image.lower()
            reader.launch(words, env, 0, bare_args=bare, notes=tuple(dict.fromkeys(service.notes)))
            commands.extend(reader.commands)
    return commands
