"""shared: loading of rule data (TOML files in rules/, shipped as flagscan.rules)."""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import resources
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class RuleDataError(Exception):
    """A rule data file is missing or malformed (a packaging defect, not user input)."""


def rules_dir():
    """The rule data directory: the installed flagscan.rules package, or the
    repository's rules/ when flagscan runs from a source checkout."""
    try:
        return resources.files("flagscan.rules")
    except ModuleNotFoundError:
        from pathlib import Path

        return Path(__file__).resolve().parent.parent / "rules"


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """Parse ``rules/<name>.toml``."""
    try:
        text = (rules_dir() / f"{name}.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError) as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is missing") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is malformed: {exc}") from exc
