"""evaluate: the cache of runtime-gate results, keyed without loading the tree's read facts.

A gate result depends on flagscan's engine, the tree's files, the flags asked about,
the resolved settings and environment the runtime sees, the GPU and the model facts:
the key is made of exactly those (the tree by its content digest, as the resolution
cache does in flagscan/evaluate/cachekey.py), so a warm `report -- ARGV` or `lint`
answers from one small record without reading the tree's whole-read index or
importing a module. Records live under `<cache>/facts/gates/` (a report's JSON, as it
is printed) and `<cache>/facts/gate-verdicts/` (lint's per-flag verdicts); within one
process lint's are also kept in memory, so a fleet of identical commands costs one
lookup each.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from flagscan.evaluate.interp.values import Unknown
from flagscan.extract.cache import write_bytes

if TYPE_CHECKING:
    from flagscan.evaluate.world import ModelFacts
    from flagscan.hardware import GpuProfile

T = TypeVar("T")
_MEMO: dict[tuple[str, str], Any] = {}


def _show(value: Any) -> Any:
    if isinstance(value, Unknown):
        return ["?", sorted(value.needs)]
    return repr(value)


def gates_key(root: Path, gpu: GpuProfile, env: dict[str, Any] | None, model: ModelFacts | None, settings: dict[str, Any] | None,
              user_dests: set[str], flags: list[str] | None = None, *extra: Any) -> str:
    """A digest that changes when any input of a gate result does."""
    from flagscan.evaluate.cachekey import tree_digest
    from flagscan.extract.cache import engine_version

    given_env = env or {}
    doc = {"engine": engine_version(), "tree": tree_digest(Path(root)), "gpu": gpu.to_json(),
           "env": {k: given_env[k] for k in sorted(given_env)},
           "model": [model.config, model.complete, model.origin] if model is not None else None,
           "settings": {k: _show(v) for k, v in sorted((settings or {}).items())} if settings is not None else None,
           "user": sorted(user_dests), "flags": sorted(flags) if flags is not None else None,
           "extra": list(extra)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _path(cache_dir: Path | None, kind: str, key: str, suffix: str) -> Path | None:
    return Path(cache_dir) / "facts" / kind / f"{key}{suffix}" if cache_dir is not None else None


def cached_json(cache_dir: Path | None, key: str, build: Callable[[], Any] | None,
                valid: Callable[[Any], bool] = lambda doc: isinstance(doc, dict)) -> Any | None:
    """A JSON document from `<cache>/facts/gates/<key>.json`, else built and stored (None: only look).

    What comes back has been through JSON either way, so a hit and a fresh build give the same bytes."""
    path = _path(cache_dir, "gates", key, ".json")
    hit = _read_json(path)
    if valid(hit):
        return hit
    if build is None:
        return None
    payload = json.loads(json.dumps(build(), default=str))
    if path is not None:
        write_bytes(path, json.dumps(payload, separators=(",", ":")).encode("utf-8"))
    return payload


def cached_value(cache_dir: Path | None, kind: str, key: str, build: Callable[[], T]) -> T:
    """A picklable value of plain data from `<cache>/facts/<kind>/<key>.pickle`, else built and stored."""
    # one table and one folder per kind: an entry is what a build() of the same kind gave
    memo: T | None = _MEMO.get((kind, key))
    if memo is not None:
        return memo
    path = _path(cache_dir, kind, key, ".pickle")
    hit: T | None = _read_pickle(path)
    if hit is not None:
        _MEMO[(kind, key)] = hit
        return hit
    value = build()
    if path is not None and value is not None:
        try:
            write_bytes(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            pass  # a value pickle cannot hold is simply not cached
    if value is not None:
        _MEMO[(kind, key)] = value
    return value


def forget() -> None:
    """Drop what this process keeps in memory (tests compare a cold and a warm run in one process)."""
    _MEMO.clear()


def _read_json(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except (OSError, ValueError):
        return None


def _read_pickle(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None  # written by another flagscan or cut short: computed again
