"""source: choose the SGLang revision when --sglang is not given (config pin, installed, default)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flagscan.ruledata import RuleDataError, load
from flagscan.source.model import SourceError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_NAMES = ("flagscan.toml", "pyproject.toml")  # the more specific file wins in one directory


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(f"cannot read {path}: {exc}") from None
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None


def _pin_in(path: Path, data: dict[str, Any]) -> Any:
    table = data.get("tool", {}).get("flagscan", {}) if isinstance(data.get("tool"), dict) else {}
    value = table.get("sglang") if isinstance(table, dict) else None
    if value is None and path.name == "flagscan.toml":
        value = data.get("sglang")
    return value


def _as_spec(value: object, path: Path) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SourceError(f"{path}: the sglang pin must be a non-empty string, got {value!r}")
    value = value.strip()
    # A path pin is relative to the file that states it, not to the working directory.
    if value.startswith((".", "~")) or "/" in value or value.endswith((".whl", ".tar.gz")):
        candidate = Path(value).expanduser()
        if not candidate.is_absolute():
            candidate = path.parent / candidate
        return str(candidate.resolve())
    return value


def config_files(start: Path) -> Iterator[Path]:
    """The configuration files from `start` upwards, nearest first; in one directory in
    CONFIG_NAMES order. Both the pin (here) and `[tool.flagscan]` (flagscan.config) are
    looked up along this walk."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for directory in (here, *here.parents):
        for name in CONFIG_NAMES:
            path = directory / name
            if path.is_file():
                yield path


def config_pin(start: Path) -> tuple[str, Path] | None:
    for path in config_files(start):
        value = _pin_in(path, _load_toml(path))
        if value is not None:
            return _as_spec(value, path), path
    return None


def default_pin() -> tuple[str, str]:
    """(pin, how) from rules/sources.toml [pin] default_pin."""
    try:
        pin = load("sources").get("pin", {}).get("default_pin")
    except RuleDataError as exc:
        raise SourceError(f"{exc} (reinstall flagscan, or give --sglang)") from None
    if not isinstance(pin, str) or not pin.strip():
        raise SourceError("rules/sources.toml has no [pin] default_pin (reinstall flagscan, or give --sglang)")
    return pin.strip(), "default pin in rules/sources.toml"


def installed_version() -> str | None:
    from importlib import metadata  # asked only without --sglang: importing it costs every run ~40 ms

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None


def resolve_pin(start: Path, *, cache_dir: Path | None = None, offline: bool = False) -> tuple[str, str]:
    """(spec, how): the nearest config pin, else the installed sglang's version, else the default.

    ``cache_dir`` and ``offline`` are accepted so callers can pass their options through;
    choosing a pin never touches the network or the cache.
    """
    del cache_dir, offline
    found = config_pin(Path(start))
    if found is not None:
        spec, path = found
        return spec, f"{path.name} at {path}"
    version = installed_version()
    if version:
        return version, f"installed sglang {version}"
    return default_pin()
