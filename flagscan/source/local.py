"""source: serve a local checkout/directory or the installed distribution in place."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from importlib import metadata

from flagscan.source.model import (
    PACKAGE,
    SourceError,
    SourceTree,
    combine_digest,
    read_version,
    scan_tree,
    version_from_pyproject,
)


def _metadata() -> Any:
    """importlib.metadata, imported when first needed: only the installed provider uses it, and
    importing it costs every run ~40 ms. (Tests replace it as `local.metadata`.)"""
    found = globals().get("metadata")
    if found is None:
        from importlib import metadata as found
    return found


def __getattr__(name: str) -> Any:
    if name == "metadata":
        return _metadata()
    raise AttributeError(name)


def _is_package(path: Path) -> bool:
    return path.is_dir() and any((path / marker).exists() for marker in ("__init__.py", "version.py", "srt"))


def find_root(path: Path) -> Path:
    """The directory containing ``sglang/`` for a checkout, a parent dir, or the package itself."""
    for candidate in (path / "python", path, path.parent):
        if _is_package(candidate / PACKAGE) and (candidate != path.parent or path.name == PACKAGE):
            return candidate
    raise SourceError(
        f"{path} contains no sglang package (looked for {path}/python/sglang, {path}/sglang, "
        f"and {path} itself as the package)"
    )


def tree_in_place(root: Path, revision: str, provider: str, served_by: str,
                  version: str | None = None) -> SourceTree:
    entries = scan_tree(root)
    if not entries:
        raise SourceError(f"{root / PACKAGE} holds no Python files")
    found = read_version(root) or version
    if found is None and (root / "pyproject.toml").is_file():
        found = version_from_pyproject((root / "pyproject.toml").read_text(errors="replace"))
    return SourceTree(root, revision, found, provider, combine_digest(entries.items()), served_by)


def from_directory(path: Path, revision: str) -> SourceTree:
    root = find_root(path)
    return tree_in_place(root, revision, "local", f"local: {root / PACKAGE}")


def _editable_dir(dist: metadata.Distribution) -> Path | None:
    """The source dir of an editable install (PEP 610 direct_url.json), if any."""
    raw = dist.read_text("direct_url.json")
    if not raw:
        return None
    try:
        info = json.loads(raw)
    except ValueError:
        return None
    url = info.get("url", "") if isinstance(info, dict) else ""
    if not url.startswith("file:"):
        return None
    return Path(unquote(urlparse(url).path))


def installed_root() -> tuple[Path, str]:
    """(root containing sglang/, distribution version) of the installed sglang, never importing it."""
    metadata = _metadata()

    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        raise SourceError(
            f"'installed' was asked for but no sglang distribution is installed for {sys.executable}"
        ) from None
    for entry in dist.files or ():
        if entry.parts[:1] == (PACKAGE,) and entry.name.endswith(".py"):
            located = Path(str(dist.locate_file(entry)))
            root = located.parents[len(entry.parts) - 1]
            if (root / PACKAGE).is_dir():
                return root, dist.version
    editable = _editable_dir(dist)
    if editable is not None and editable.is_dir():
        return find_root(editable), dist.version
    raise SourceError(f"sglang {dist.version} is installed but its sglang/ package files cannot be located")


def from_installed(revision: str) -> SourceTree:
    root, version = installed_root()
    return tree_in_place(root, revision, "installed", f"installed: sglang {version} at {root / PACKAGE}",
                         version=version)
