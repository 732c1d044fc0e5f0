"""flagscan diff across the monolithic -> hook-era refactor (0.5.18 -> 0.5.20), on real releases."""

from __future__ import annotations

import json

import pytest

from flagscan.diffing.run import diff_revisions
from tests.lint.helpers import target

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def report(real_cache_dir):
    old, new = target("0.5.18", str(real_cache_dir)), target("0.5.20", str(real_cache_dir))
    return diff_revisions(old, new, {"version": "0.5.18"}, {"version": "0.5.20"})


def test_rules_moved_into_hooks_are_not_removed_and_re_added(report) -> None:
    e = report.effects
    assert e.moved >= 100  # _handle_* methods became arg_groups/*_hook.py functions
    key = "args.chunked_prefill_size is None and gpu_mem < 20 * 1024 and gpu_mem is not None"
    touched = [x for x in e.added + e.removed if x["target"] == "chunked_prefill_size" and x["guard"] == key]
    assert not touched
    # No setting has every one of its rules reported as removed while the same rules come back as added.
    removed = {(x["target"], x["guard"], x["value"]) for x in e.removed if x["kind"] == "write"}
    added = {(x["target"], x["guard"], x["value"]) for x in e.added if x["kind"] == "write"}
    assert not removed & added


def test_flags_are_keyed_by_dest_across_the_refactor(report) -> None:
    f = report.flags
    assert not set(f.added) & set(f.removed)
    assert "chunked_prefill_size" not in f.added + f.removed
    json.dumps(report.to_json())  # serialisable as the JSON contract
