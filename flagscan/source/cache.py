"""source: the content-addressed tree cache (trees/<digest>/sglang/..., refs/<provider>/...).

Layout under the cache dir:
  trees/<sha256 hex>/MANIFEST.json       {"format", "digest", "files", "version", "entries"}, written
                                         last; entries: relpath -> [size, mtime_ns, sha256] (manifest.py)
  trees/<sha256 hex>/sglang/**.py        only the Python files of the package
  refs/pypi/<version>.json               {"digest", "version", "origin", "provider"}
  refs/git/<url key>/commits/<sha>.json  {"digest", "version", "origin", "sha", "url"}
  refs/git/<url key>/tags/<tag>.json     {"sha", "url"}
  refs/file/<archive sha256>.json        a wheel/sdist given as a path
  tmp/                                   staging dirs; a finished tree is renamed into trees/
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flagscan.source import manifest as tree_manifest
from flagscan.source.manifest import TreeCheck
from flagscan.source.model import DIGEST_PREFIX, PACKAGE, SourceError, combine_digest, file_hash

MANIFEST = "MANIFEST.json"
FORMAT = 1
_STALE_STAGE_S = 24 * 3600


def default_cache_dir() -> Path:
    """$FLAGSCAN_CACHE_DIR, else $XDG_CACHE_HOME/flagscan, else ~/.cache/flagscan."""
    explicit = os.environ.get("FLAGSCAN_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "flagscan"
    return Path.home() / ".cache" / "flagscan"


def _write_json_atomic(path: Path, data: dict[str, Any], *, compact: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if compact:  # a tree manifest: read on every warm run
                json.dump(data, fh, sort_keys=True, separators=(",", ":"))
            else:
                json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass(slots=True)
class TreeBuilder:
    """Collects the kept files of one tree in a private staging dir inside the cache."""

    stage: Path
    entries: dict[str, str] = field(default_factory=dict)

    def add(self, relpath: str, data: bytes) -> None:
        target = self.stage / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.entries[relpath] = file_hash(data)

    @property
    def has_package(self) -> bool:
        return any(p.startswith(PACKAGE + "/") for p in self.entries)

    def discard(self) -> None:
        shutil.rmtree(self.stage, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class Cache:
    root: Path

    @property
    def trees(self) -> Path:
        return self.root / "trees"

    @property
    def refs(self) -> Path:
        return self.root / "refs"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    def tree_path(self, digest: str) -> Path:
        return self.trees / digest.removeprefix(DIGEST_PREFIX)

    # -- trees ---------------------------------------------------------------------
    def tree_status(self, digest: str) -> str:
        """'ok', 'missing', 'corrupt' or 'damaged' (see check_tree)."""
        return self.check_tree(digest).status

    def check_tree(self, digest: str) -> TreeCheck:
        """A cached tree against its manifest: every file stat'ed, only changed ones hashed.

        A tree whose manifest is missing, unreadable or for another digest is `corrupt`;
        one whose files differ from the manifest is `damaged` (the files are named).
        """
        path = self.tree_path(digest)
        if not path.exists():
            return TreeCheck("missing")
        manifest = _read_json(path / MANIFEST)
        if not manifest or manifest.get("digest") != digest or manifest.get("format") != FORMAT:
            return TreeCheck("corrupt")
        found = tree_manifest.check(path, manifest, digest)
        if found.ok and found.refreshed is not None:
            # Stats changed but contents did not (or an older manifest): record them, so
            # the next run stats again instead of hashing.
            _write_json_atomic(path / MANIFEST, {**manifest, "entries": found.refreshed}, compact=True)
        return found

    def manifest(self, digest: str) -> dict[str, Any]:
        return _read_json(self.tree_path(digest) / MANIFEST) or {}

    def verify_deep(self, digest: str) -> bool:
        """Re-hash every file of a cached tree (slow; for `sources verify`)."""
        path = self.tree_path(digest)
        if self.tree_status(digest) != "ok":
            return False
        entries = []
        for dirpath, _, files in os.walk(path / PACKAGE):
            for name in files:
                full = Path(dirpath) / name
                entries.append((full.relative_to(path).as_posix(), file_hash(full.read_bytes())))
        return combine_digest(entries) == digest

    def builder(self) -> TreeBuilder:
        self.tmp.mkdir(parents=True, exist_ok=True)
        self._sweep_stale()
        stage = Path(tempfile.mkdtemp(prefix="stage-", dir=self.tmp))
        return TreeBuilder(stage)

    def commit(self, builder: TreeBuilder, *, version: str | None) -> str:
        """Move a finished staging dir into trees/<digest>; the first complete writer wins."""
        if not builder.has_package:
            builder.discard()
            raise SourceError("the fetched source holds no Python files under sglang/")
        digest = combine_digest(builder.entries.items())
        manifest = {"format": FORMAT, "digest": digest, "files": len(builder.entries),
                    "version": version, "entries": tree_manifest.record(builder.stage, builder.entries)}
        # The manifest is written last: a tree without a valid one is never trusted.
        _write_json_atomic(builder.stage / MANIFEST, manifest, compact=True)
        target = self.tree_path(digest)
        target.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            try:
                os.rename(builder.stage, target)
                return digest
            except OSError:
                if self.tree_status(digest) == "ok":
                    builder.discard()  # a concurrent run (or an earlier one) got there first
                    return digest
                self._evict(target)
        builder.discard()
        raise SourceError(
            f"could not write the cache entry {target}; check permissions or run `flagscan sources clear`"
        )

    def _evict(self, path: Path) -> None:
        trash = self.tmp / f"trash-{uuid.uuid4().hex}"
        try:
            os.rename(path, trash)
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def _sweep_stale(self) -> None:
        now = time.time()
        for entry in self.tmp.iterdir():
            try:
                if now - entry.stat().st_mtime > _STALE_STAGE_S:
                    shutil.rmtree(entry, ignore_errors=True)
            except OSError:
                continue

    # -- refs ----------------------------------------------------------------------
    def ref_path(self, provider: str, *key: str) -> Path:
        parts = [quote(k, safe="") for k in key]
        return self.refs.joinpath(provider, *parts[:-1], parts[-1] + ".json")

    def read_ref(self, provider: str, *key: str) -> dict[str, Any] | None:
        return _read_json(self.ref_path(provider, *key))

    def write_ref(self, provider: str, *key: str, data: dict[str, Any]) -> None:
        _write_json_atomic(self.ref_path(provider, *key), {"format": FORMAT, **data})


def list_cached(cache_dir: Path | None = None) -> list[dict[str, Any]]:
    """Every ref in the cache with the tree it points to and that tree's status."""
    cache = Cache(Path(cache_dir) if cache_dir else default_cache_dir())
    out: list[dict[str, Any]] = []
    if not cache.refs.exists():
        return out
    for path in sorted(cache.refs.rglob("*.json")):
        data = _read_json(path) or {}
        rel = path.relative_to(cache.refs).with_suffix("").as_posix()
        provider, _, key = rel.partition("/")
        digest = data.get("digest")
        if digest is None and isinstance(data.get("sha"), str) and "/tags/" in key:
            # A tag ref names a commit; show the tree that commit's ref points to.
            commit = cache.read_ref("git", key.split("/tags/")[0], "commits", data["sha"]) or {}
            digest = commit.get("digest")
            data = {**commit, **data}
        out.append({
            "provider": provider,
            "key": key,
            "digest": digest,
            "version": data.get("version"),
            "origin": data.get("origin"),
            "sha": data.get("sha"),
            "status": cache.tree_status(digest) if isinstance(digest, str) else "missing",
            "path": str(cache.tree_path(digest)) if isinstance(digest, str) else None,
        })
    return out


def clear_cache(cache_dir: Path | None = None) -> int:
    """Remove every cached tree and ref; returns how many trees were removed."""
    cache = Cache(Path(cache_dir) if cache_dir else default_cache_dir())
    count = sum(1 for p in cache.trees.iterdir() if p.is_dir()) if cache.trees.exists() else 0
    cache.tmp.mkdir(parents=True, exist_ok=True)
    for sub in (cache.trees, cache.refs):
        if sub.exists():
            cache._evict(sub)  # rename first, so a concurrent reader never sees half a tree
    return count
