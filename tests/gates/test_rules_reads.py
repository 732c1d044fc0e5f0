"""rules/reads.toml: every idiom has a known kind and its fields; scope paths are package paths."""

from __future__ import annotations

from flagscan.extract.reads_walk import Idioms
from flagscan.ruledata import load

KINDS = {"accessor": "functions", "dict": "names", "name": "names", "attribute": "attributes", "getattr": "functions"}


def test_idioms_are_well_formed():
    data = load("reads")
    for idiom in data["idiom"]:
        assert idiom["kind"] in KINDS, idiom
        assert idiom[KINDS[idiom["kind"]]], idiom
        assert idiom["name"]
    for path in data["scope"]["resolution"] + data["scope"]["exclude"]:
        assert path.startswith("sglang/")
    assert data["prefilter"]["needles"]


def test_accessors_are_qualified_names():
    idioms = Idioms.from_rules()
    assert all(name.startswith("sglang.") for name in idioms.accessors)
    assert idioms.role("sglang/srt/server_args.py") == "resolution"
    assert idioms.role("sglang/test/test_utils.py") is None
    assert idioms.role("sglang/srt/layers/communicator.py") == "runtime"
