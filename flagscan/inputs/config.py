"""inputs: SGLang's `--config FILE` YAML merge, modelled on its ConfigArgumentMerger."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import FileLocation, Problem, ProblemKind
from flagscan.facts.flags import Flag, Inventory
from flagscan.inputs.model import InputError
from flagscan.inputs.text import read_source

if TYPE_CHECKING:
    from yaml.nodes import MappingNode


@dataclass(frozen=True, slots=True)
class Tok:
    """One argv string on its way to the parser, with where it came from."""

    text: str
    location: FileLocation | None
    unresolved: tuple[str, ...] = ()
    origin: str = "cli"  # "cli" or "config"


@dataclass(slots=True)
class Merge:
    tokens: list[Tok]
    problems: list[Problem] = field(default_factory=list)
    # False when the config could not be read here: values may come from it unseen.
    complete: bool = True


def _problem(kind: ProblemKind, tok: Tok, **data: Any) -> Problem:
    return Problem(kind, tok.location, tok.text.split("=", 1)[0], data)


def _kinds(inventory: Inventory) -> tuple[set[str], dict[str, Flag], set[str]]:
    """SGLang's split of parser actions: store_true dests, unsupported ones (an action other
    than store/store_true), and those newer releases accept (one value, custom class)."""
    store_true: set[str] = set()
    unsupported: dict[str, Flag] = {}
    newer_only: set[str] = set()
    for flag in inventory.flags:
        if inventory.config_option in flag.options or "--help" in flag.options:
            continue
        if flag.action == "store_true":
            store_true.add(flag.dest)
        elif flag.action != "store":
            if flag.nargs is None and flag.takes_value:
                newer_only.add(flag.dest)
            unsupported.setdefault(flag.dest, flag)
    return store_true, unsupported, newer_only


def _location(path: str, node: Any) -> FileLocation:
    return FileLocation(path, node.start_mark.line + 1, node.start_mark.column + 1)


def _config_tokens(path: str, root: MappingNode, data: dict[Any, Any], inventory: Inventory,
                   merge: Merge) -> list[Tok]:
    from yaml.nodes import ScalarNode, SequenceNode  # PyYAML only once a config file is read

    store_true, unsupported, newer_only = _kinds(inventory)
    out: list[Tok] = []
    for key_node, value_node in root.value:
        if not isinstance(key_node, ScalarNode):
            continue
        key = key_node.value
        if key not in data:
            continue  # a key YAML reads as something other than a string (SGLang fails on it)
        value = data[key]
        here = _location(path, key_node)
        norm = key.replace("-", "_")
        flag_tok = Tok(f"--{key}", here, (), "config")
        if norm in unsupported:
            kind = ProblemKind.CONFIG_NEWER_ACTION if norm in newer_only else ProblemKind.CONFIG_UNSUPPORTED
            merge.problems.append(_problem(kind, flag_tok, key=key, action=unsupported[norm].action))
            if kind is ProblemKind.CONFIG_UNSUPPORTED:
                continue
        if isinstance(value, bool):
            if norm in store_true:
                if value:
                    out.append(flag_tok)
                continue
            out += [flag_tok, Tok(str(value).lower(), _location(path, value_node), (), "config")]
        elif isinstance(value, list):
            if value:
                items = value_node.value if isinstance(value_node, SequenceNode) else [value_node] * len(value)
                out.append(flag_tok)
                out += [Tok(str(v), _location(path, n), (), "config") for v, n in zip(value, items, strict=False)]
        else:
            text = json.dumps(value) if isinstance(value, dict) else str(value)
            out += [flag_tok, Tok(text, _location(path, value_node), (), "config")]
    return out


def merge_config(tokens: list[Tok], inventory: Inventory, base_dir: str) -> Merge:
    """Insert the config file's options before the command-line ones (CLI > config > default),
    as `prepare_server_args()` does when `--config` is a word of argv."""
    option = inventory.config_option
    merge = Merge(list(tokens))
    if not option:
        return merge
    indices = [i for i, tok in enumerate(tokens) if tok.text == option]
    if not indices:
        return merge
    if len(indices) > 1:
        merge.problems.append(_problem(ProblemKind.CONFIG_SEVERAL, tokens[indices[1]]))
        drop = {j for i in indices for j in (i, i + 1)}
        merge.tokens = [t for k, t in enumerate(tokens) if k not in drop]
        return merge
    index = indices[0]
    flag_tok = tokens[index]
    if index == len(tokens) - 1:
        merge.problems.append(_problem(ProblemKind.CONFIG_NO_FILE, flag_tok, config=option))
        merge.tokens = tokens[:index]
        return merge
    path_tok = tokens[index + 1]
    rest = tokens[:index] + tokens[index + 2:]
    merge.tokens = rest
    if path_tok.unresolved:
        merge.complete = False
        return merge
    path = path_tok.text
    if os.path.splitext(path)[1].lower() not in (".yaml", ".yml"):
        merge.problems.append(_problem(ProblemKind.CONFIG_NOT_YAML, path_tok, file=path))
        return merge
    full = path if os.path.isabs(path) else os.path.join(base_dir, path)
    if not os.path.isfile(full):
        merge.complete = False
        merge.problems.append(_problem(ProblemKind.CONFIG_NOT_FOUND, path_tok, file=path))
        return merge
    import yaml  # PyYAML only once a config file is named

    try:
        source = read_source(full)
        nodes = yaml.compose(source.text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(source.text)
    except (InputError, yaml.YAMLError, RecursionError, ValueError) as exc:
        merge.complete = False
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        merge.problems.append(_problem(ProblemKind.CONFIG_UNREADABLE, path_tok, file=path, error=reason))
        return merge
    if data is None:
        return merge
    if not isinstance(data, dict) or not isinstance(nodes, yaml.MappingNode):
        merge.problems.append(_problem(ProblemKind.CONFIG_NOT_MAPPING, path_tok, file=path))
        return merge
    merge.tokens = _config_tokens(source.path, nodes, data, inventory, merge) + rest
    return merge
