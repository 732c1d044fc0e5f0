"""Run `flagscan diff` on consecutive SGLang releases and keep the per-pair summary as a dataset.

    python -m tests.diffing.make_dataset [--cache-dir DIR] [--sample N]

Writes tests/data/diffs/pairs.json (one summary per pair, plus the renamed flags and
new start-up checks) and, with --sample, tests/data/diffs/sample.json: a seeded,
stratified sample of reported changes to verify by reading the source (the verdicts
live in tests/data/diffs/verified.json).
"""

from __future__ import annotations

import argparse
import json
import random
from itertools import pairwise
from pathlib import Path

RELEASES = ["0.5.5", "0.5.6", "0.5.7", "0.5.8", "0.5.9", "0.5.10", "0.5.11", "0.5.12", "0.5.13", "0.5.14",
            "0.5.15", "0.5.16", "0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"]
OUT = Path(__file__).resolve().parents[1] / "data" / "diffs"


def target(spec: str, cache: Path):
    from flagscan.extract import load_inventory
    from flagscan.lint import Target
    from flagscan.source import get_source

    tree = get_source(spec, cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    return Target(tree.root, cache, inventory, tree.version or spec), tree.to_json()


def _entries(old: str, new: str, doc: dict) -> list[dict]:
    """Every reported change as one flat record, for sampling."""
    out = []
    f, e = doc["flags"], doc["effects"]
    out += [{"category": "flag-added", "dest": d} for d in f["added"]]
    out += [{"category": "flag-removed", "dest": d} for d in f["removed"]]
    out += [{"category": "option-removed", "option": o} for o in f["options"]["removed"]]
    out += [{"category": "flag-renamed", **r} for r in f["renamed"]]
    out += [{"category": f"flag-{c['field']}-changed", **c} for c in f["changed"]]
    out += [{"category": f"{x['kind']}-added", **x} for x in e["added"]]
    out += [{"category": f"{x['kind']}-removed", **x} for x in e["removed"]]
    out += [{"category": f"{c['kind']}-{c['what']}-changed", **c} for c in e["changed"]]
    return [{"pair": f"{old}->{new}", **x} for x in out]


def main() -> None:
    from flagscan.diffing.run import diff_revisions

    parser = argparse.ArgumentParser()
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "flagscan-test")
    parser.add_argument("--sample", type=int, default=0)
    args = parser.parse_args()
    pairs, everything = [], []
    for old, new in pairwise(RELEASES):
        (a, a_json), (b, b_json) = target(old, args.cache_dir), target(new, args.cache_dir)
        doc = diff_revisions(a, b, a_json, b_json).to_json()
        pairs.append({"old": old, "new": new, "summary": doc["summary"], "renamed": doc["flags"]["renamed"],
                      "flags_removed": doc["flags"]["removed"], "flags_added": doc["flags"]["added"],
                      "rejections_added": len(doc["effects"]["rejections_added"])})
        everything += _entries(old, new, doc)
        print(old, new, doc["summary"], flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "pairs.json").write_text(json.dumps({"releases": RELEASES, "pairs": pairs}, indent=1) + "\n")
    if args.sample:
        rng = random.Random(20260101)
        by_category: dict[str, list[dict]] = {}
        for entry in everything:
            by_category.setdefault(entry["category"], []).append(entry)
        sample = []
        while len(sample) < args.sample and any(by_category.values()):
            for category in sorted(by_category):
                if by_category[category] and len(sample) < args.sample:
                    sample.append(by_category[category].pop(rng.randrange(len(by_category[category]))))
        (OUT / "sample.json").write_text(json.dumps(sample, indent=1) + "\n")


if __name__ == "__main__":
    main()
