"""source: the per-file manifest of a cached tree, and the cheap check that serves it.

A cached tree's MANIFEST.json records, for every file, its size, its mtime (ns) and its
sha256, as written at unpack. Serving a tree stats every file and hashes only a file
whose size or mtime changed: on the 4719 files (68 MB) of SGLang 0.5.23 that is ~70 ms
(the file-count walk it replaces took ~35 ms); hashing the whole tree takes ~350 ms,
too slow for every warm run. A file whose stat differs but
whose content still hashes as recorded (a `touch`) is re-recorded; any other difference
(changed, missing or added file) makes the tree `damaged`, naming the files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.source.model import PACKAGE, combine_digest, file_hash

# The manifest stays format 1 with "entries" added, so that an older flagscan sharing the
# cache still accepts these trees (and the entries it does not write are added when served).
Entries = dict[str, list[Any]]   # relpath -> [size, mtime_ns, sha256 hex]


@dataclass(frozen=True, slots=True)
class TreeCheck:
    """The state of one cached tree: `ok`, `missing`, `corrupt` (no valid manifest) or `damaged`."""

    status: str
    damaged: tuple[str, ...] = ()   # relpaths (sglang/...) that differ from the manifest, sorted
    refreshed: Entries | None = None  # entries to re-record (stat changed, content did not)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self, path: Path) -> str:
        if self.status == "damaged" and self.damaged:
            more = f" and {len(self.damaged) - 1} more" if len(self.damaged) > 1 else ""
            return f"{path} is damaged: {self.damaged[0]}{more} differs from its manifest"
        if self.status == "damaged":
            return f"{path} is damaged: its files do not hash to its digest"
        return f"{path} is {self.status}"


def record(stage: Path, hashes: dict[str, str]) -> Entries:
    """The manifest entries of freshly written files (relpath -> sha256)."""
    out: Entries = {}
    for relpath, digest in sorted(hashes.items()):
        st = os.stat(stage / relpath)
        out[relpath] = [st.st_size, st.st_mtime_ns, digest]
    return out


def _files(path: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(relpath, directory entry) of every file under path/sglang, in one scandir pass
    (plain strings: this runs on every warm serve)."""
    top = os.fspath(path)
    cut = len(top) + 1
    stack = [os.path.join(top, PACKAGE)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                yield entry.path[cut:], entry


def _stat_tree(path: Path) -> dict[str, tuple[int, int]]:
    """relpath -> (size, mtime_ns) of every file under path/sglang."""
    out: dict[str, tuple[int, int]] = {}
    for rel, entry in _files(path):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def _hash(path: Path) -> str | None:
    try:
        return file_hash(path.read_bytes())
    except OSError:
        return None


def _file_names(path: Path) -> set[str]:
    """relpath of every file under path/sglang, from directory entries alone (no stat per file)."""
    return {rel for rel, _ in _files(path)}


def check(path: Path, manifest: dict[str, Any], digest: str) -> TreeCheck:
    """Compare a tree on disk with its manifest; hashes only files whose stat changed.

    This runs on every warm serve, so it is one pass over the directory entries: each file
    is stat'ed as it comes and compared with its entry (an entry not recorded is an added
    file); the recorded names are compared as a set only when fewer were seen (missing)."""
    entries = manifest.get("entries")
    if not isinstance(entries, dict):
        return _check_unrecorded(path, manifest, digest)
    damaged: list[str] = []
    refreshed: Entries = {}
    seen = 0
    for relpath, entry in _files(path):
        want = entries.get(relpath)
        if want is None:
            damaged.append(relpath)   # added
            continue
        seen += 1
        if not isinstance(want, list) or len(want) != 3:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            damaged.append(relpath)
            continue
        if st.st_size != want[0]:
            damaged.append(relpath)
        elif st.st_mtime_ns != want[1]:
            if _hash(path / relpath) == want[2]:
                refreshed[relpath] = [st.st_size, st.st_mtime_ns, want[2]]
            else:
                damaged.append(relpath)
    if seen != len(entries):
        damaged += sorted(entries.keys() - _file_names(path))   # missing
    if damaged:
        return TreeCheck("damaged", tuple(sorted(set(damaged))))
    if refreshed:
        return TreeCheck("ok", refreshed={**entries, **refreshed})
    return TreeCheck("ok")


def _check_unrecorded(path: Path, manifest: dict[str, Any], digest: str) -> TreeCheck:
    """A tree cached before per-file entries: hash it once and record them if it matches its digest."""
    hashes: dict[str, str] = {}
    for relpath in _stat_tree(path):
        found = _hash(path / relpath)
        if found is None:
            return TreeCheck("damaged", (relpath,))
        hashes[relpath] = found
    if combine_digest(hashes.items()) != digest or len(hashes) != manifest.get("files"):
        return TreeCheck("damaged")
    return TreeCheck("ok", refreshed=record(path, hashes))
