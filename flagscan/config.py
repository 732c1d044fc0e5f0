"""shared: `[tool.flagscan]` configuration (pyproject.toml or flagscan.toml), validated, one-line errors.

The nearest file upwards from the starting directory that has a flagscan table wins;
in one directory flagscan.toml (top-level keys or [tool.flagscan]) beats
pyproject.toml ([tool.flagscan]). Paths are relative to the file that states them.
The SGLang pin (`sglang = "0.5.10"`) is read by flagscan.source.pin.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from flagscan.source.pin import config_files

SEVERITIES = ("error", "warning", "info")
_LISTS = ("select", "extend-select", "ignore")


class ConfigError(Exception):
    """A configuration file flagscan cannot use; `str()` names the file and the key."""


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None = None
    sglang: str | None = None
    gpu: str | None = None
    gpu_count: int | None = None
    model_config: str | None = None
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    fail_on: str | None = None
    upgrade_to: str | None = None


def _table(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    tool = data.get("tool")
    table = tool.get("flagscan") if isinstance(tool, dict) else None
    if table is None and path.name == "flagscan.toml":
        table = {k: v for k, v in data.items() if k != "tool"}
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.flagscan] must be a table")
    return table


def find_config(start: Path) -> Path | None:
    """The nearest configuration file from `start` upwards that has a flagscan table."""
    return next((path for path in config_files(start) if _table(path) is not None), None)


def load_config(explicit: str | Path | None = None, start: Path | None = None) -> Config:
    """The configuration from `explicit`, else the nearest file from `start` (default: cwd)."""
    path = Path(explicit) if explicit else find_config(start or Path.cwd())
    if path is None:
        return Config()
    if explicit and not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    return parse(_table(path) or {}, path)


def _strings(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of rule codes")
    return tuple(value)


def _string(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: {key} must be a non-empty string")
    return value.strip()


def parse(table: dict[str, Any], path: Path) -> Config:
    known = {"sglang", "gpu", "gpu-count", "model-config", "fail-on", "upgrade-to", "per-file-ignores", *_LISTS}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r} in [tool.flagscan] (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {"path": path}
    for key in ("sglang", "gpu", "upgrade-to"):
        if key in table:
            values[key.replace("-", "_")] = _string(path, key, table[key])
    if "model-config" in table:
        values["model_config"] = str((path.parent / _string(path, "model-config", table["model-config"])).resolve())
    if "gpu-count" in table:
        count = table["gpu-count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ConfigError(f"{path}: gpu-count must be a positive integer")
        values["gpu_count"] = count
    if "fail-on" in table:
        fail_on = _string(path, "fail-on", table["fail-on"]).lower()
        if fail_on not in SEVERITIES:
            raise ConfigError(f"{path}: fail-on must be one of {', '.join(SEVERITIES)}")
        values["fail_on"] = fail_on
    for key in _LISTS:
        if key in table:
            values[key.replace("-", "_")] = _strings(path, key, table[key])
    if "per-file-ignores" in table:
        raw = table["per-file-ignores"]
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [codes]")
        values["per_file_ignores"] = tuple((g, _strings(path, f"per-file-ignores.{g}", c)) for g, c in raw.items())
    return Config(**values)
