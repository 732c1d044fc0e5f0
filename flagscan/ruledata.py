"""shared: loading of rule data (TOML files in rules/, shipped as flagscan.rules)."""

from __future__ import annotations

import marshal
import os
import re
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

RECORD_KEYS = ("module", "class")


class RuleDataError(Exception):
    """A rule data file is missing or malformed (a packaging defect, not user input)."""


@cache
def rules_dir() -> Traversable:
    """The rule data directory: the installed flagscan.rules package, or the
    repository's rules/ when flagscan runs from a source checkout. A package on disk is
    its directory (found without importlib.resources' readers, which import zipfile on
    every run); only a package inside an archive goes through importlib.resources."""
    from importlib.util import find_spec
    from pathlib import Path

    try:
        spec = find_spec("flagscan.rules")
    except ModuleNotFoundError:
        spec = None
    if spec is None:
        return Path(__file__).resolve().parent.parent / "rules"
    locations = list(spec.submodule_search_locations or [])
    if len(locations) == 1 and Path(locations[0]).is_dir():
        return Path(locations[0])
    from importlib import resources

    return resources.files("flagscan.rules")


def _parse(name: str) -> dict[str, Any]:
    folder = rules_dir()
    if isinstance(folder, os.PathLike):
        return _parse_file(os.fspath(folder), name)
    try:
        text = (folder / f"{name}.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError) as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is missing") from exc
    return _toml(name, text)


def _toml(name: str, text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is malformed: {exc}") from exc


def _parse_file(folder: str, name: str) -> dict[str, Any]:
    """A rule file on disk, parsed once per content: the parse is kept as marshal data in
    `__pycache__` beside it (as Python keeps compiled modules) with the sha256 of the text it
    came from, since parsing TOML in pure Python is ~10 ms of every run."""
    import hashlib

    path = os.path.join(folder, f"{name}.toml")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is missing") from exc
    stamp = hashlib.sha256(raw).digest()
    kept = os.path.join(folder, "__pycache__", f"{name}.toml.marshal")
    try:
        with open(kept, "rb") as fh:
            was, data = marshal.loads(fh.read())
        if was == stamp and isinstance(data, dict):
            return data
    except (OSError, ValueError, EOFError, TypeError):
        pass   # none kept yet, or unreadable: parsed below
    data = _toml(name, raw.decode("utf-8"))
    if not sys.dont_write_bytecode:
        _keep(kept, (stamp, data))
    return data


def _keep(path: str, value: Any) -> None:
    """Write marshal data whole or not at all; a read-only install only costs speed."""
    try:
        blob = marshal.dumps(value)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass   # a value marshal cannot hold (a TOML date), or no write access


@cache
def load(name: str) -> dict[str, Any]:
    """Parse ``rules/<name>.toml``; a table saying ``record = true`` gets the module and
    class of ``rules/record.toml [record]`` (the record is stated in that one place)."""
    data = _parse(name)
    for key, table in data.items():
        if isinstance(table, dict) and table.get("record") is True:
            restated = [k for k in RECORD_KEYS if k in table]
            if restated:
                raise RuleDataError(f"rule data rules/{name}.toml [{key}] restates {restated[0]} of rules/record.toml")
            table.update({k: load("record")["record"][k] for k in RECORD_KEYS})
    return data


@cache
def condition_fields() -> re.Pattern[str]:
    """`<record name>.<field>` in a guard's source text, the field captured
    (rules/record.toml [names] conditions)."""
    names = "|".join(re.escape(n) for n in load("record")["names"]["conditions"])
    return re.compile(rf"\b(?:{names})\.(\w+)")


def model_path_of(values: dict[str, Any]) -> str | None:
    """The model path a command gives (rules/record.toml [settings] model), if a string."""
    value = values.get(load("record")["settings"]["model"])
    return value if isinstance(value, str) else None


def command_width(values: dict[str, Any]) -> int:
    """How many GPUs a command's parallel sizes need: the product of the positive integer
    values of rules/record.toml [settings] width (1 when it gives none)."""
    width = 1
    for dest in load("record")["settings"]["width"]:
        value = values.get(dest)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            width *= value
    return width
