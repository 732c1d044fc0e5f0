"""evaluate: the key of a cached prediction: flagscan's engine, the tree's files, the command, the scenario."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from flagscan.evaluate.interp.values import Unknown

if TYPE_CHECKING:
    from flagscan.evaluate import Scenario

T = TypeVar("T")

_CONTENT_ADDRESSED = re.compile(r"[0-9a-f]{64}")


def tree_digest(root: Path) -> str:
    """What names a tree's files: a cached tree's folder is its content digest (checked against
    its manifest when it is served); any other tree is named by its files' sizes and mtimes."""
    if _CONTENT_ADDRESSED.fullmatch(root.name) and (root / "MANIFEST.json").is_file():
        return root.name
    return shared("tree", str(root.resolve()), lambda: _listing_digest(root))


def _listing_digest(root: Path) -> str:
    from flagscan.extract.reads import tree_listing

    h = hashlib.sha256()
    for rel, st in tree_listing(root):
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return "listing:" + h.hexdigest()


def scenario_key(root: Path, given: dict[str, Any], scenario: Scenario, *extra: Any) -> str:
    """A digest that changes when any input of a prediction does (a file of the tree by size or
    mtime, flagscan's evaluator or rule data, a value of the command, the GPU, env or model)."""
    from flagscan.evaluate.resolution.results import jsonable
    from flagscan.extract.cache import engine_version
    from flagscan.strict import strict

    h = hashlib.sha256(engine_version().encode())
    h.update(tree_digest(Path(root)).encode())
    model = scenario.model
    doc = {"values": {k: repr(v) if isinstance(v, Unknown) else jsonable(v) for k, v in sorted(given.items())},
           "gpu": scenario.gpu.to_json(), "env": scenario.env,
           "model": [model.config, model.complete, model.origin, model.added_tokens()] if model is not None else None,
           "extra": list(extra),
           # a result computed leniently may hide a give-up that FLAGSCAN_STRICT=1 must raise
           "strict": strict(),
           "packages": scenario.packages.key() if scenario.packages is not None else None}
    h.update(json.dumps(doc, sort_keys=True, default=str).encode())
    return h.hexdigest()[:32]


_SHARED: dict[tuple[str, str], Any] | None = None


@contextmanager
def sharing() -> Iterator[None]:
    """Within this block, a prediction of the same key is computed (or read back) once and
    shared: a lint of many files whose commands are identical resolves each of them once."""
    global _SHARED
    outer = _SHARED
    _SHARED = {} if outer is None else outer
    try:
        yield
    finally:
        _SHARED = outer


def shared(kind: str, key: str, compute: Callable[[], T]) -> T:
    """compute(), or what it gave for the same (kind, key) inside the current `sharing()` block."""
    if _SHARED is None:
        return compute()
    if (kind, key) not in _SHARED:
        _SHARED[(kind, key)] = compute()
    # one table holds every kind: an entry is what a compute() of the same kind gave
    value: T = _SHARED[(kind, key)]
    return value
