"""flagscan's inventory against SGLang's own argparse parser, recorded per release.

The JSON under tests/data/groundtruth/inventory/ was written by running each
release's real `ServerArgs.add_cli_args` (tests/differential/dump_inventory.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flagscan.extract import load_inventory
from flagscan.source import get_source
from tests.differential.compare_inventory import compare

GROUNDTRUTH = Path(__file__).resolve().parent.parent / "data" / "groundtruth" / "inventory"
RELEASES = sorted(p.stem for p in GROUNDTRUTH.glob("*.json"))


def test_groundtruth_covers_the_required_releases() -> None:
    assert {"0.5.5", "0.5.8", "0.5.10", "0.5.12", "0.5.14", "0.5.16", "0.5.18", "0.5.20", "0.5.22",
            "0.5.23"} <= set(RELEASES)


@pytest.mark.real
@pytest.mark.parametrize("release", RELEASES)
def test_inventory_matches_sglangs_parser(release: str, real_cache_dir) -> None:
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    truth = json.loads((GROUNDTRUTH / f"{release}.json").read_text())
    result = compare(inventory.to_json(), truth)
    summary = result["summary"]
    assert result["missing_in_flagscan"] == [] and result["extra_in_flagscan"] == []
    assert result["mismatches"] == []
    # Every field of every flag decided: an unknown is no mismatch, but the inventory
    # is claimed exact, so none is allowed either.
    assert result["unknowns"] == [], result["unknowns"][:5]
    assert result["parser"]["allow_abbrev"]["agree"]
    assert summary["exact"] and summary["field_agreement"] == 1.0


@pytest.mark.real
@pytest.mark.parametrize("release", ["0.5.14", "0.5.18", "0.5.20", "0.5.23"])
def test_annotated_field_generator_was_reviewed(release: str, real_cache_dir) -> None:
    """rules/cli.toml restates the generator's branch semantics; its hash must match."""
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    assert not any("generator differs" in note for note in inventory.notes), inventory.notes
