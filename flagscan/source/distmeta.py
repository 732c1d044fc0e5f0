"""source: a release's distribution metadata: the packages it pins (Requires-Dist) and its
console scripts (entry_points.txt), from its wheel, the cache, or the installed dist-info."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.source.model import PACKAGE, SourceError

# The platform a release is analysed for (SGLang serves on Linux x86_64 GPUs; the PyPI
# provider asks pip for a cp311 manylinux wheel): Requires-Dist markers are evaluated there.
MARKER_ENV = {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
              "os_name": "posix", "python_version": "3.11", "python_full_version": "3.11.0",
              "implementation_name": "cpython", "platform_python_implementation": "CPython"}


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (`flashinfer_python` == `flashinfer-python`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True)
class Requirement:
    """One Requires-Dist line: `pinned` is the exact version (`==X`) or None (a range, or no pin);
    `default` whether `pip install sglang` installs it here (no extra, marker true on Linux x86_64)."""

    name: str
    pinned: str | None
    specifier: str
    default: bool

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "pinned": self.pinned, "specifier": self.specifier, "default": self.default}


@dataclass(frozen=True, slots=True)
class DistMeta:
    """What a release's distribution declares; `origin` says where it was read."""

    version: str | None
    requires: tuple[Requirement, ...]
    console_scripts: tuple[tuple[str, str], ...]   # (script, "module:function"), sorted
    origin: str

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "requires": [r.to_json() for r in self.requires],
                "console_scripts": [list(p) for p in self.console_scripts], "origin": self.origin}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DistMeta:
        reqs = tuple(Requirement(r["name"], r.get("pinned"), r.get("specifier", ""), bool(r.get("default")))
                     for r in data.get("requires", []))
        scripts = tuple((str(a), str(b)) for a, b in data.get("console_scripts", []))
        return cls(data.get("version"), reqs, scripts, str(data.get("origin", "")))


def parse_requirement(line: str) -> Requirement | None:
    from packaging.markers import UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement
    from packaging.requirements import Requirement as PkgRequirement

    try:
        req = PkgRequirement(line)
    except InvalidRequirement:
        return None
    default = True
    if req.marker is not None:
        try:
            default = req.marker.evaluate({**MARKER_ENV, "extra": ""})
        except UndefinedEnvironmentName:
            default = False
    pins = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    return Requirement(normalise(req.name), pins[0] if len(pins) == 1 else None, str(req.specifier), default)


def parse_metadata(metadata: str, entry_points: str, origin: str) -> DistMeta:
    """The core metadata's headers (RFC 822: a field may continue over indented lines, some of
    them blank but for the indent, as a License text does); the body is the long description."""
    from email.parser import HeaderParser

    headers = HeaderParser().parsestr(metadata)
    version = headers.get("Version")
    requires = []
    for value in headers.get_all("Requires-Dist") or []:
        req = parse_requirement(" ".join(str(value).split()))
        if req is not None:
            requires.append(req)
    version = version.strip() if isinstance(version, str) else None
    return DistMeta(version, tuple(sorted(requires, key=lambda r: (r.name, not r.default))),
                    tuple(sorted(console_scripts(entry_points))), origin)


def console_scripts(text: str) -> list[tuple[str, str]]:
    import configparser  # only when metadata is parsed, not on a warm run that reads it cached

    class _CaseKeepingParser(configparser.ConfigParser):
        """entry_points.txt names are case-sensitive; ConfigParser lower-cases keys by default."""

        def optionxform(self, optionstr: str) -> str:
            return optionstr

    parser = _CaseKeepingParser(delimiters=("=",), interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    if not parser.has_section("console_scripts"):
        return []
    return [(k.strip(), v.strip()) for k, v in parser.items("console_scripts")]


def read_wheel(path: Path) -> DistMeta:
    """METADATA and entry_points.txt of an sglang wheel; an sdist has no such metadata."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            meta = next((n for n in names if re.fullmatch(rf"{PACKAGE}-[^/]+\.dist-info/METADATA", n)), None)
            if meta is None:
                raise SourceError(f"{path.name} has no {PACKAGE} .dist-info/METADATA")
            eps = meta.rsplit("/", 1)[0] + "/entry_points.txt"
            text = zf.read(meta).decode("utf-8", "replace")
            entry = zf.read(eps).decode("utf-8", "replace") if eps in names else ""
    except (OSError, zipfile.BadZipFile) as exc:
        raise SourceError(f"cannot read {path.name}: {exc}") from exc
    return parse_metadata(text, entry, f"wheel {path.name}")


def read_installed() -> DistMeta | None:
    """The installed sglang's dist-info (None when SGLang is not installed)."""
    from importlib import metadata

    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        return None
    text = dist.read_text("METADATA") or ""
    return parse_metadata(text, dist.read_text("entry_points.txt") or "", "installed dist-info")


def installed_versions(names: list[str]) -> dict[str, str | None]:
    """normalised distribution name -> the version installed in this environment (None: absent)."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[normalise(name)] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[normalise(name)] = None
    return out


__all__ = ["DistMeta", "Requirement", "installed_versions", "normalise", "parse_metadata", "read_installed",
           "read_wheel"]
