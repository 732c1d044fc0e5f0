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


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """Parse ``rules/<name>.toml``."""
    try:
        text = (resources.files("flagscan.rules") / f"{name}.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is missing") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleDataError(f"rule data rules/{name}.toml is malformed: {exc}") from exc
