"""report renderers: a no-op says which condition is false where; evidence values do not contradict
themselves; labels are not doubled; long flag lists wrap; the graph leaves out isolated settings."""

from __future__ import annotations

from types import SimpleNamespace

import networkx as nx
import pytest

from flagscan.report import gates_graph, gates_text, resolve_text


def _no_op_entry() -> dict:
    return {"status": "NO_OP", "reads": [], "needs": [],
            "evidence": [{"read": "sglang/srt/layers/communicator.py:12", "guard": "_is_sm90_supported or _is_sm100_supported",
                          "guard_location": "sglang/srt/layers/communicator.py:10",
                          "names": [{"name": "_is_sm90_supported", "value": False}]}]}


def test_a_no_op_names_the_false_condition_and_the_gpu() -> None:
    text = gates_text._why(_no_op_entry(), "sm120")
    assert "`_is_sm90_supported or _is_sm100_supported` is false on sm120" in text
    assert "dead because" not in text


def test_evidence_values_do_not_contradict_themselves() -> None:
    from flagscan.evaluate.gates.evidence import _value
    from flagscan.evaluate.interp.values import Unknown

    # `env_flag and is_hip()` on CUDA: the value is open, its truth is not
    interp = SimpleNamespace(eval=lambda *_a: Unknown("env_flag and is_hip()", frozenset({"env:X"}), None, False))
    text = _value(interp, None, "_use_aiter")
    assert text.startswith("unknown in general") and "false on this GPU" in text
    assert "unknown value" not in text


def test_a_gpu_without_a_name_is_not_labelled_twice() -> None:
    gpu = SimpleNamespace(count=1, name=None, sm="sm120")
    result = (SimpleNamespace(path="<argv>", line=1), SimpleNamespace(diagnostics=[]),
              SimpleNamespace(gpu=gpu, model=None), SimpleNamespace(rejections=[], settings={}, stops=[]), [])
    assert "sm120 (sm120)" not in resolve_text.render([result])


def test_long_flag_lists_wrap_to_the_width_when_not_a_terminal() -> None:
    flags = {f"some_rather_long_flag_name_{i}": {"status": "EFFECTIVE", "reads": []} for i in range(40)}
    text = gates_text.render({"h200": {"flags": flags}, "b200": {"flags": flags}}, "0.5.90")
    assert max(len(line) for line in text.splitlines()) <= gates_text.text_width() == 100


def test_the_graph_leaves_out_isolated_settings_unless_asked() -> None:
    g = nx.MultiDiGraph()
    g.add_node("setting:a", kind="setting")
    g.add_node("setting:b", kind="setting")
    g.add_node("setting:lonely", kind="setting")
    g.add_edge("setting:a", "setting:b", kind="writes")
    assert "setting:lonely" not in gates_graph.render(g, "dot")
    assert "setting:lonely" in gates_graph.render(g, "dot", keep_isolated=True)
    ids = {n["id"] for n in gates_graph.to_json(gates_graph.connected(g))["nodes"]}
    assert ids == {"setting:a", "setting:b"}


@pytest.mark.gives_up
def test_report_says_where_analysis_stopped(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from flagscan.cli import main
    from tests.conftest import ROOT

    tree = tmp_path / "tree"
    import shutil

    shutil.copytree(ROOT / "fixtures" / "trees" / "lint", tree)
    comm = tree / "sglang" / "srt" / "layers" / "communicator.py"
    # a guard whose value comes through recursion deeper than flagscan follows
    comm.write_text(comm.read_text() + "\n\ndef _deep(n):\n    return n if n > 100 else _deep(n + 1)\n\n\n"
                    "_FUSE_DEPTH = _deep(1)\n")
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(tmp_path / "c"), "-q", "report",
                                       "--gpu", "h200", "--format", "json"])
    stopped = json.loads(result.stdout)["stopped"]
    assert stopped and all(set(s) == {"location", "construct", "unknown"} for s in stopped)
    assert any(s["location"].startswith("sglang/srt/layers/communicator.py:") for s in stopped)
    text = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(tmp_path / "c"), "-q", "report",
                                     "--gpu", "h200"]).stdout
    assert "analysis stopped at" in text
