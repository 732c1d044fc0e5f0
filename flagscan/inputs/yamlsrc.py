"""inputs: YAML launch files read as PyYAML nodes, so every value keeps its line and column."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flagscan.inputs.model import InputError, Source, Word

_NULL_TAG = "tag:yaml.org,2002:null"


def compose_documents(source: Source) -> list[Node]:
    """Every document's root node; malformed YAML is one InputError with its line."""
    try:
        return [doc for doc in yaml.compose_all(source.text, Loader=yaml.SafeLoader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise InputError(f"{source.path}{where}: malformed YAML ({problem})") from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise InputError(f"{source.path}: malformed YAML ({type(exc).__name__})") from None


def items(node: Node | None, _seen: frozenset[int] = frozenset()) -> Iterator[tuple[str, Node]]:
    """A mapping's (key, value) pairs, `<<` merge keys followed as YAML merge does (own keys first)."""
    if not isinstance(node, MappingNode) or id(node) in _seen:
        return
    seen = _seen | {id(node)}
    merged: list[Node] = []
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "<<" and key.tag.endswith(":merge"):
            merged.extend(value.value if isinstance(value, SequenceNode) else [value])
        elif isinstance(key, ScalarNode):
            yield key.value, value
    for other in merged:
        yield from items(other, seen)


def get(node: Node | None, key: str) -> Node | None:
    for name, value in items(node):
        if name == key:
            return value
    return None


def text(node: Node | None) -> str | None:
    """A scalar's text (None for null, a missing node, a list or a mapping)."""
    if isinstance(node, ScalarNode) and node.tag != _NULL_TAG:
        return str(node.value)
    return None


def is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == _NULL_TAG)


def line(node: Node) -> int:
    return node.start_mark.line + 1


def scalar_word(node: ScalarNode, source: Source) -> Word:
    """The scalar's value with a file offset for each character.

    Plain and quoted scalars map one to one except for escapes and folded line
    breaks, so characters are aligned with the source text in order; a character
    that cannot be found takes the previous one's offset.
    """
    value = str(node.value)
    begin, end = node.start_mark.index, node.end_mark.index
    raw = source.text[begin:end]
    r = 0
    if node.style in ("|", ">"):
        r = raw.find("\n") + 1 if "\n" in raw else len(raw)
    elif node.style in ("'", '"'):
        r = 1
    offsets: list[int] = []
    lost = False
    for ch in value:
        j = -1
        if not lost:
            if ch.isspace():
                j = next((k for k in range(r, len(raw)) if raw[k].isspace()), -1)
            else:
                j = raw.find(ch, r)
            lost = j < 0
        if j >= 0:
            offsets.append(begin + j)
            r = j + 1
        else:
            offsets.append(offsets[-1] if offsets else begin)
    return Word(value, tuple(offsets), begin, source, (), end)


def words(node: Node | None, source: Source) -> list[Word] | None:
    """A list of scalars as words (one per item); None when the node is not a list."""
    if not isinstance(node, SequenceNode):
        return None
    return [replace(scalar_word(item, source), item=True)
            for item in node.value if isinstance(item, ScalarNode) and not is_null(item)]


def walk(node: Node, _seen: set[int] | None = None) -> Iterator[MappingNode]:
    """Every mapping under `node` (each once, whatever its aliases)."""
    seen = set() if _seen is None else _seen
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, MappingNode):
            yield current
            stack.extend(v for _, v in reversed(current.value))
        elif isinstance(current, SequenceNode):
            stack.extend(reversed(current.value))
