"""extract: the inventory of a parser of rules/programs.toml: rules/cli.toml's, or another
add_cli_args of the release (the diffusion server's) extracted from source the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.extract.cache import FactCache
from flagscan.extract.errors import ExtractionError
from flagscan.facts.flags import Inventory
from flagscan.ruledata import load


def module_path(root: Path, module: str) -> str | None:
    rel = module.replace(".", "/")
    for candidate in (f"{rel}.py", f"{rel}/__init__.py"):
        if (Path(root) / candidate).is_file():
            return candidate
    return None


def parser_inventory(root: Path, cache_dir: Path | None, name: str, default: Inventory) -> Inventory:
    """The inventory of parser `name` of rules/programs.toml (`default`: rules/cli.toml's)."""
    spec = load("programs").get("parser", {}).get(name)
    if spec is None:
        raise ExtractionError(f"rules/programs.toml has no parser {name!r}")
    if spec.get("inventory") == "cli":
        return default
    found = next(((m, path) for m in spec.get("modules", []) if (path := module_path(root, m)) is not None), None)
    if found is None:
        raise ExtractionError(f"this release has no {spec.get('modules', ['?'])[0]} (the {name} parser)")
    module, anchor = found

    def build() -> tuple[dict[str, Any], list[str]]:
        from flagscan.extract.flags import extract_inventory
        from flagscan.extract.modules import SourceIndex

        rules = dict(load("cli"))
        rules["entry"] = {**rules["entry"], "module": module, "class": spec["class"], "method": spec["method"]}
        index = SourceIndex(Path(root))
        return extract_inventory(index, rules).to_json(), list(index.parsed_files())

    payload, _ = FactCache(cache_dir).get_or_build(f"inventory-{name}", Path(root), anchor, build)
    return Inventory.from_json(payload)


__all__ = ["module_path", "parser_inventory"]
