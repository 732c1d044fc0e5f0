"""rules/verify.toml: every entry well-formed and naming a real ServerArgs field."""

from __future__ import annotations

import json
from pathlib import Path

from flagscan.ruledata import load

INVENTORIES = Path(__file__).resolve().parents[1] / "data" / "groundtruth" / "inventory"


def _dests() -> set[str]:
    return {a["dest"] for p in INVENTORIES.glob("*.json") for a in json.loads(p.read_text())["actions"]}


def test_unpredictable_entries() -> None:
    data = load("verify")
    dests = _dests()
    seen = set()
    for entry in data["unpredictable"]:
        assert set(entry) <= {"dest", "why", "when"}, entry
        assert entry["dest"] in dests, f"{entry['dest']} is no flag of any recorded release"
        assert entry["when"] in ("not_given", "always")
        assert entry["why"].strip()
        assert entry["dest"] not in seen
        seen.add(entry["dest"])


def test_runtime_keys_are_not_flags() -> None:
    runtime = set(load("verify")["runtime"]["keys"])
    assert runtime and not runtime & _dests()
    assert load("verify")["redacted"]["values"] == ["<redacted>"]
