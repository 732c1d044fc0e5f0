"""extract: lowered modules on demand, cached per file content hash.

The evaluator asks for modules by dotted name; a module is parsed and lowered only
the first time its exact content is seen (the cache key is the file's sha256 and
flagscan's extractor version), so a warm run and a neighbouring release re-parse
only files that changed. The read extractor (flagscan/extract/reads.py) fills
the same cache as it parses, so the gate evaluation that follows it re-parses
nothing.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from pathlib import Path
from typing import Any

from flagscan.extract.cache import code_version, write_bytes
from flagscan.source.model import PACKAGE


def in_tree(dotted: str) -> bool:
    """Whether a dotted module name belongs to the analysed tree: the `sglang` package.

    An installed SGLang is served in place, so its root is a site-packages that also
    holds its dependencies (msgspec, pydantic, transformers...). Those are outside the
    analysed tree whatever files sit beside it: their meaning is rule data
    (rules/world.toml), as for a tree fetched from PyPI or git, which holds only
    `sglang/`.
    """
    return dotted.split(".", 1)[0] == PACKAGE


def module_file(root: Path, dotted: str) -> Path | None:
    """The file of module `dotted` in the tree under `root` (`a/b.py`, else the package's
    `a/b/__init__.py`), as Python's path finder picks it; None outside the tree."""
    if not in_tree(dotted):
        return None
    base = Path(root).joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def ir_record(cache_dir: Path | None, digest: str) -> Path | None:
    """Where the lowered module of a file whose content has sha256 `digest` is cached.

    Records are marshal data (the IR is plain lists, dicts, strings and numbers; marshal
    writes about four times faster than JSON and reads faster), so the directory names the
    marshal format and the Python version that wrote them."""
    if cache_dir is None:
        return None
    fmt = f"{code_version()}-m{marshal.version}-py{sys.version_info[0]}.{sys.version_info[1]}"
    return Path(cache_dir) / "facts" / "ir" / fmt / digest[:2] / f"{digest}.marshal"


def read_ir(path: Path) -> dict[str, Any] | None:
    """A cached lowered module; None when it is missing or damaged (it is then lowered again)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        module = marshal.loads(data)  # marshal.load(fh) would read the file piece by piece
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return module if isinstance(module, dict) and isinstance(module.get("body"), list) else None


def write_ir(path: Path, module: dict[str, Any]) -> None:
    write_bytes(path, marshal.dumps(module))


_SHARED: dict[str, dict[str, Any]] = {}   # digest -> lowered module, for every store of this process


class ModuleStore:
    def __init__(self, root: Path, cache_dir: Path | None = None) -> None:
        self.root = Path(root)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._loaded: dict[str, dict[str, Any] | None] = {}
        self._files: dict[str, Path | None] = {}
        self._packages: dict[str, bool] = {}
        self.parsed: list[str] = []   # relpaths parsed in this run (cold work)
        self.failed: dict[str, str] = {}

    def module_file(self, dotted: str) -> Path | None:
        # asked for again and again (every import, every lookup of a submodule): the tree
        # does not change while a store serves it, so each answer is kept
        if dotted not in self._files:
            self._files[dotted] = module_file(self.root, dotted)
        return self._files[dotted]

    def is_package(self, dotted: str) -> bool:
        if dotted not in self._packages:
            self._packages[dotted] = in_tree(dotted) and (
                self.root.joinpath(*dotted.split(".")) / "__init__.py").is_file()
        return self._packages[dotted]

    def get(self, dotted: str) -> dict[str, Any] | None:
        if dotted in self._loaded:
            return self._loaded[dotted]
        path = self.module_file(dotted)
        module = self._load(dotted, path) if path is not None else None
        self._loaded[dotted] = module
        return module

    def _load(self, dotted: str, path: Path) -> dict[str, Any] | None:
        data = path.read_bytes()
        key = hashlib.sha256(data).hexdigest()
        relpath = path.relative_to(self.root).as_posix()
        shared = _SHARED.get(key)
        if shared is not None:  # the same content seen by another store (another GPU profile)
            return {**shared, "name": dotted, "path": relpath}
        record = ir_record(self.cache_dir, key)
        module = read_ir(record) if record is not None else None
        if module is None:
            module = self._lower(dotted, path, data)
            if module is not None and record is not None:
                self._store(record, module)
        if module is not None:
            _SHARED[key] = module
            module = {**module, "name": dotted, "path": relpath}
        return module

    def _lower(self, dotted: str, path: Path, data: bytes) -> dict[str, Any] | None:
        from flagscan.extract.lower import LowerError, lower_source

        relpath = path.relative_to(self.root).as_posix()
        try:
            module = lower_source(data.decode("utf-8"), dotted, relpath, path.name == "__init__.py")
        except (LowerError, UnicodeDecodeError) as exc:
            self.failed[relpath] = str(exc)
            return None
        self.parsed.append(relpath)
        return module

    @staticmethod
    def _store(path: Path, module: dict[str, Any]) -> None:
        write_ir(path, module)
