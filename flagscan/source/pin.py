"""source: choose the SGLang revision when --sglang is not given (config pin, installed, default)."""

from __future__ import annotations

import sys
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from flagscan.source.model import SourceError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

FALLBACK_PIN = "0.5.23"
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


def _as_spec(value: Any, path: Path) -> str:
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


def config_pin(start: Path) -> tuple[str, Path] | None:
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for directory in (here, *here.parents):
        for name in CONFIG_NAMES:
            path = directory / name
            if path.is_file():
                value = _pin_in(path, _load_toml(path))
                if value is not None:
                    return _as_spec(value, path), path
    return None


def _rules_file() -> tuple[bytes | None, str]:
    try:
        ref = resources.files("flagscan.rules") / "sources.toml"
        return ref.read_bytes(), "rules/sources.toml"
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        pass
    # A source checkout that is not installed: rules/ sits next to the flagscan package.
    checkout = Path(__file__).resolve().parents[2] / "rules" / "sources.toml"
    try:
        return checkout.read_bytes(), "rules/sources.toml"
    except OSError:
        return None, "rules/sources.toml"


def default_pin() -> tuple[str, str]:
    """(pin, how) from rules/sources.toml [pin] default_pin, else the built-in fallback."""
    raw, name = _rules_file()
    if raw is not None:
        try:
            pin = tomllib.loads(raw.decode("utf-8")).get("pin", {}).get("default_pin")
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
            pin = None
        if isinstance(pin, str) and pin.strip():
            return pin.strip(), f"default pin in {name}"
        return FALLBACK_PIN, f"built-in default {FALLBACK_PIN} ({name} has no [pin] default_pin)"
    return FALLBACK_PIN, f"built-in default {FALLBACK_PIN} ({name} not found)"


def installed_version() -> str | None:
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
