"""The diff dataset over consecutive releases and its hand-verified sample are well formed."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from tests.diffing.make_dataset import RELEASES

DATA = Path(__file__).resolve().parents[1] / "data" / "diffs"


def test_pairs_cover_every_consecutive_release() -> None:
    doc = json.loads((DATA / "pairs.json").read_text())
    assert doc["releases"] == RELEASES
    assert [(p["old"], p["new"]) for p in doc["pairs"]] == list(pairwise(RELEASES))
    for pair in doc["pairs"]:
        assert pair["summary"]["gates"] == "not analysed" or pair["summary"]["gates"] == "analysed"


def test_verified_sample_has_a_verdict_and_reasoning_for_each_entry() -> None:
    doc = json.loads((DATA / "verified.json").read_text())
    entries = doc["entries"]
    assert len(entries) >= 30
    assert all(e["verdict"] in ("correct", "incorrect") and len(e["reasoning"]) > 20 for e in entries)
    correct = sum(e["verdict"] == "correct" for e in entries)
    assert doc["precision"]["all"] == f"{correct}/{len(entries)}"
    assert {e["entry"]["pair"] for e in entries} <= {f"{a}->{b}" for a, b in pairwise(RELEASES)}
