"""extract: facts cached on disk, keyed by the content of the files they were read from.

A record lists every source file the extraction consulted with its sha256, so a
neighbouring revision reuses it when none of those files changed. The key also
covers flagscan's own extractor code and rule data, so changing either
invalidates old records. Writes are atomic (temp file + rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

FORMAT = 1



# What a run will need later and can begin in the background once it finds itself cold
# (flagscan.extract.reads.want_reads registers the tree's parse).
_COLD_WORK: list[Callable[[], None]] = []


def when_cold(begin: Callable[[], None]) -> None:
    """Run `begin` at the first cache miss that costs this run seconds (`cold_work_ahead`)."""
    _COLD_WORK.append(begin)


def cold_work_ahead() -> None:
    """Said where a run misses its cache and will compute for seconds (the flag inventory, the
    resolution, the startup phase): the work registered with `when_cold` begins now, so that it
    runs on the other cores beside this work instead of after it."""
    while _COLD_WORK:
        _COLD_WORK.pop(0)()


def no_collector() -> None:
    """In a forked process that computes one phase (or reads a tree's files) and then exits: no
    cyclic garbage collection. Nearly all it allocates lives until it exits, so a collection
    only walks live objects (about a second of a cold 0.5.23 lint's critical path); what a
    cycle holds is freed when the process exits."""
    import gc

    gc.disable()


def _own_files() -> tuple[list[Any], list[Path]]:
    """(the extractor's code and rule data, the evaluator's code), each in a fixed order
    (rule data inside an archive is an importlib.resources Traversable, not a Path)."""
    from flagscan.ruledata import rules_dir

    here = Path(__file__).resolve().parent
    extractor: list[Any] = sorted(here.glob("*.py")) + sorted((here.parent / "facts").glob("*.py"))
    extractor += sorted((p for p in rules_dir().iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)
    return extractor, sorted((here.parent / "evaluate").rglob("*.py"))


def _digest(seed: str, files: list[Any]) -> str:
    h = hashlib.sha256(seed.encode())
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# Where the two digests of flagscan's own files are remembered, next to its compiled code.
_MEMO = Path(__file__).resolve().parent.parent / "__pycache__" / "flagscan-code-digests.json"


@cache
def _versions() -> tuple[str, str]:
    """(code_version, engine_version). Hashing flagscan's ~150 files is ~15 ms of every warm
    run, so the digests are remembered by the files' paths, sizes, mtimes and inodes: an
    unchanged install reads one small file; any change to a file hashes them all again."""
    extractor, evaluator = _own_files()
    files = [*extractor, *evaluator]
    stamp = _stamp(files) if all(isinstance(f, Path) for f in files) else None
    if stamp is not None:
        try:
            memo = json.loads(_MEMO.read_bytes())
            if isinstance(memo, dict) and memo.get("stamp") == stamp and memo.get("format") == FORMAT:
                return str(memo["code"]), str(memo["engine"])
        except (OSError, ValueError, KeyError):
            pass  # none yet, or unreadable: hashed below
    code = _digest(str(FORMAT), extractor)
    engine = _digest(code, evaluator)
    if stamp is not None and not sys.dont_write_bytecode:   # as Python does for the .pyc files beside it
        write_json(_MEMO, {"format": FORMAT, "stamp": stamp, "code": code, "engine": engine})
    return code, engine


def _stamp(files: list[Path]) -> str:
    h = hashlib.sha256()
    for path in files:
        st = path.stat()
        h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
    return h.hexdigest()


def code_version() -> str:
    """A digest of the extractor's code and rule data."""
    return _versions()[0]


def write_bytes(path: Path, data: bytes) -> None:
    """A cache record, written whole or not at all (temp file + rename)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs speed


def write_json(path: Path, payload: Any) -> None:
    """A JSON cache record, written whole or not at all (one-shot C encoder)."""
    write_bytes(path, json.dumps(payload, separators=(",", ":")).encode())


def engine_version() -> str:
    """code_version() plus the evaluator's code: the key of cached verdicts (not of facts)."""
    return _versions()[1]


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class FactCache:
    """`<cache_dir>/facts/<kind>/<key>.json` records; a None cache_dir disables caching."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.dir = Path(cache_dir) / "facts" if cache_dir is not None else None

    def get_or_build(self, kind: str, root: Path, anchor: str,
                     build: Callable[[], tuple[Any, list[str]]]) -> tuple[Any, bool]:
        """Return (payload, hit). `anchor` is a relpath whose content names the record;
        `build` returns (json payload, relpaths consulted)."""
        anchor_path = root / anchor
        if self.dir is None or not anchor_path.is_file():
            return build()[0], False
        key = hashlib.sha256(f"{code_version()}:{file_digest(anchor_path)}".encode()).hexdigest()[:32]
        record_path = self.dir / kind / f"{key}.json"
        record = self._read(record_path)
        if record is not None and self._still_valid(root, record["deps"]):
            return record["payload"], True
        cold_work_ahead()  # this run is cold: what it will need later can begin beside this build
        payload, consulted = build()
        deps = {rel: file_digest(root / rel) for rel in sorted(set(consulted)) if (root / rel).is_file()}
        self._write(record_path, {"deps": deps, "payload": payload})
        return payload, False

    @staticmethod
    def _still_valid(root: Path, deps: dict[str, str]) -> bool:
        for rel, digest in deps.items():
            path = root / rel
            if not path.is_file() or file_digest(path) != digest:
                return False
        return True

    @staticmethod
    def _read(path: Path) -> dict[str, Any] | None:
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            return None  # missing or corrupt: rebuilt and overwritten
        if not isinstance(record, dict) or "deps" not in record or "payload" not in record:
            return None
        return record

    @staticmethod
    def _write(path: Path, record: dict[str, Any]) -> None:
        write_json(path, record)


def clear_facts(cache_dir: Path) -> int:
    """Remove every cached fact record; returns how many were removed."""
    import shutil

    root = Path(cache_dir) / "facts"
    count = sum(1 for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0
    shutil.rmtree(root, ignore_errors=True)
    return count
