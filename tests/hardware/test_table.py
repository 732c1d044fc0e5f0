"""The GPU table (rules/gpus.toml) is consistent: every entry is reachable by its key and
aliases (no alias names two entries), and a device reporting an entry's name matches it."""

from __future__ import annotations

from collections import Counter

import pytest

from flagscan.hardware.detect import match_table
from flagscan.hardware.profile import profile_from_spec, table


def test_keys_and_aliases_name_one_entry_each() -> None:
    names = Counter(k for k in table())
    for entry in table().values():
        names.update(entry.get("aliases", []))
    assert [n for n, c in names.items() if c > 1] == []
    assert len({e["name"] for e in table().values()}) == len(table())


@pytest.mark.parametrize("key", sorted(table()))
def test_every_entry_is_a_profile_and_matches_its_own_name(key: str) -> None:
    entry = table()[key]
    profile = profile_from_spec(key)
    assert profile.capability == tuple(entry["capability"]) and profile.memory_mib == entry["memory_mib"]
    for alias in entry.get("aliases", []):
        assert profile_from_spec(alias).capability == profile.capability
    # the name as nvidia-smi / torch print it, pasted into --gpu
    assert profile_from_spec(entry["name"]).name == entry["name"]
    assert profile_from_spec(f"  {entry['name'].upper()} ").memory_mib == entry["memory_mib"]
    if entry["vendor"] == "nvidia":
        found = match_table(entry["name"], tuple(entry["capability"]), entry["memory_mib"])
        assert (found.key, found.exact) == (key, True)


@pytest.mark.parametrize("spec, capability", [
    ("t4", (7, 5)), ("v100", (7, 0)), ("a10", (8, 6)), ("a800", (8, 0)), ("l20", (8, 9)),
    ("h800", (9, 0)), ("4090d", (8, 9)), ("rtx-5080", (12, 0)),
])
def test_common_datacenter_and_desktop_gpus_are_in_the_table(spec: str, capability: tuple[int, int]) -> None:
    assert profile_from_spec(spec).capability == capability
