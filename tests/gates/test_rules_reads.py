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


def test_graph_atoms_come_from_the_graph_table(monkeypatch) -> None:
    """The env helpers, env modules and model-config attributes the dependency graph knows are
    rules/reads.toml [graph] (they were constants of facts/graph.py)."""
    import flagscan.facts.graph as graph

    test = ["bool", "and", [["call", ["n", "get_bool_env_var"], [["c", "SGLANG_A"]], []],
                            ["a", ["n", "envs"], "SGLANG_B"],
                            ["a", ["a", ["n", "self"], "model_runner"], "hf_config"]]]
    found = {node for node, _kind in graph._atoms(test, set())}
    assert {"env:SGLANG_A", "env:SGLANG_B", "model:config"} <= found
    data = load("reads")
    empty = {**data, "graph": {"env_calls": [], "env_modules": [], "model_attributes": []}}
    monkeypatch.setattr(graph, "load", lambda name: empty if name == "reads" else load(name))
    found = {node for node, _kind in graph._atoms(test, set())}
    assert not found & {"env:SGLANG_A", "env:SGLANG_B", "model:config"}
