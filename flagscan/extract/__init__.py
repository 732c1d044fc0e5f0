"""extract: libcst visitors that turn SGLang source into facts (the only stage that imports libcst).

libcst is imported lazily so that a warm run, served from the fact cache, does not
pay for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.extract.cache import FactCache
from flagscan.facts.flags import Inventory


def load_inventory(root: Path, cache_dir: Path | None = None) -> tuple[Inventory, bool]:
    """The flag inventory of the tree under `root` (which contains `sglang/`), and
    whether it came from the fact cache."""

    def build() -> tuple[dict[str, Any], list[str]]:
        from flagscan.extract.flags import extract_inventory
        from flagscan.extract.modules import SourceIndex

        index = SourceIndex(root)
        inventory = extract_inventory(index)
        return inventory.to_json(), list(index.parsed_files())

    payload, hit = FactCache(cache_dir).get_or_build("inventory", Path(root), _anchor(Path(root)), build)
    return Inventory.from_json(payload), hit


def _anchor(root: Path) -> str:
    """The record's module file (rules/record.toml), whose content keys the cached inventory;
    "" (nothing cached) when the tree has none."""
    from flagscan.extract.irstore import module_file
    from flagscan.ruledata import load

    path = module_file(root, load("record")["record"]["module"])
    return path.relative_to(root).as_posix() if path is not None else ""


__all__ = ["load_inventory"]
