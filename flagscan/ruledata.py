"""shared: loading of rule data (TOML files in rules/, shipped as flagscan.rules)."""

from __future__ import annotations

import re
import sys
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

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
    return resources.files("flagscan.rules")


def _parse(name: str) -> dict[str, Any]:
    try:
        text = (rules_dir() / f"{name}.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError) as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is missing") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is malformed: {exc}") from exc


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
