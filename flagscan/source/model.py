"""source: the SourceTree record, SourceError, and the tree digest and version readers."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "sglang"
DIGEST_PREFIX = "sha256:"


class SourceError(Exception):
    """A failure to obtain SGLang source; ``str()`` is always one line (the CLI exits 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


def one_line(text: str) -> str:
    """Collapse whitespace so that a message never spans lines."""
    return " ".join(str(text).split())


@dataclass(frozen=True, slots=True)
class SourceTree:
    """An SGLang ``sglang/`` package on disk; ``root`` is the directory that contains it."""

    root: Path
    revision: str
    version: str | None
    provider: str        # where the tree was fetched from: git, pypi, local, installed
    digest: str
    served_by: str
    cached: bool = False  # served from the cache (fetched by `provider` on an earlier run)

    @property
    def package_dir(self) -> Path:
        return self.root / PACKAGE

    def to_json(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "version": self.version,
            "provider": self.provider,
            "digest": self.digest,
            "cached": self.cached,
        }


def is_wanted(relpath: str) -> bool:
    """Whether a path relative to the root (``sglang/...``) is kept: Python sources only."""
    parts = relpath.split("/")
    return (
        len(parts) >= 2
        and parts[0] == PACKAGE
        and relpath.endswith(".py")
        and "__pycache__" not in parts
    )


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def combine_digest(entries: Iterable[tuple[str, str]]) -> str:
    """The tree digest: sha256 over ``relpath NUL filehash LF`` lines sorted by relpath."""
    h = hashlib.sha256()
    for relpath, fhash in sorted(entries):
        h.update(f"{relpath}\0{fhash}\n".encode())
    return DIGEST_PREFIX + h.hexdigest()


def scan_tree(root: Path) -> dict[str, str]:
    """Hash the wanted files under ``root/sglang`` in place: {relpath: sha256 hex}."""
    out: dict[str, str] = {}
    base = root / PACKAGE
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        for name in filenames:
            relpath = f"{rel_dir}/{name}"
            if is_wanted(relpath):
                out[relpath] = file_hash((Path(dirpath) / name).read_bytes())
    return out


# `__version__ = "0.4.1"` (old sglang/version.py) and the setuptools-scm / vcs-versioning
# file sglang/_version.py: `__version__ = version = '0.5.10'`.
_VERSION_RE = re.compile(
    r"""^(?:__version__|version)\s*(?::\s*str\s*)?=\s*(?:version\s*=\s*)?["']([^"'\n]+)["']""",
    re.MULTILINE,
)
_PYPROJECT_VERSION_RE = re.compile(r"""^version\s*=\s*["']([^"'\n]+)["']""", re.MULTILINE)


def version_from_text(text: str) -> str | None:
    m = _VERSION_RE.search(text)
    return m.group(1) if m else None


def read_version(root: Path) -> str | None:
    """SGLang's version read as text (never imported): version.py, then _version.py."""
    for name in ("version.py", "_version.py"):
        path = root / PACKAGE / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = version_from_text(text)
        if found:
            return found
    return None


def version_from_pyproject(text: str) -> str | None:
    """A static ``version = "..."`` in python/pyproject.toml's [project] table, if any."""
    in_project = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_project = stripped == "[project]"
        elif in_project:
            m = _PYPROJECT_VERSION_RE.match(stripped)
            if m:
                return m.group(1)
    return None


class Unreachable(SourceError):
    """A provider could not be reached (no network, timeout, no git/pip); try the next."""


class NotFound(SourceError):
    """A provider was reached and says the revision does not exist there."""
