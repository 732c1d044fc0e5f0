"""extract: libcst visitors that turn SGLang source into facts (the only stage that imports libcst).

libcst is imported lazily so that a warm run, served from the fact cache, does not
pay for it.
"""

from __future__ import annotations

from pathlib import Path

from flagscan.extract.cache import FactCache
from flagscan.facts.flags import Inventory

ANCHOR = "sglang/srt/server_args.py"


class ExtractionError(Exception):
    """The tree has no recognisable SGLang code where the rule data says it should be."""


def load_inventory(root: Path, cache_dir: Path | None = None) -> tuple[Inventory, bool]:
    """The flag inventory of the tree under `root` (which contains `sglang/`), and
    whether it came from the fact cache."""

    def build():
        from flagscan.extract.flags import extract_inventory
        from flagscan.extract.modules import SourceIndex

        index = SourceIndex(root)
        inventory = extract_inventory(index)
        return inventory.to_json(), list(index.parsed_files())

    payload, hit = FactCache(cache_dir).get_or_build("inventory", Path(root), ANCHOR, build)
    return Inventory.from_json(payload), hit


__all__ = ["ExtractionError", "load_inventory"]
