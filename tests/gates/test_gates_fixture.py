"""gates on a small SGLang-shaped tree: reads, guards, callers, mirrors, verdicts, a file that does not parse."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from flagscan.evaluate.gates import Status
from flagscan.evaluate.gates_run import evaluate_gpu, gpu_json
from flagscan.extract.reads import load_reads
from flagscan.facts.graph import build_graph, focus
from flagscan.hardware import profile_from_spec
from tests.conftest import TREES

ROOT = TREES / "gates"
DESTS = ["fast_path", "use_mode", "steer_src", "steer_dst", "everywhere", "never_read"]
INVENTORY = SimpleNamespace(flags=[SimpleNamespace(dest=d) for d in DESTS])


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    return load_reads(ROOT, tmp_path_factory.mktemp("cache"), workers=1)


def verdicts(reads, gpu, settings=None):
    return evaluate_gpu(ROOT, None, INVENTORY, reads, profile_from_spec(gpu), settings=settings)


def test_reads_and_guards(reads):
    facts = reads.files["sglang/srt/layers/fast.py"]
    read = next(r for r in facts.reads if r.chain == ("fast_path",))
    assert read.function == "use_fast_path"
    assert [g.kind for g in read.guards] == ["and", "and", "and"]
    assert read.guards[0].text == "_is_hopper"


def test_unparsable_file_is_skipped_and_said(reads):
    assert "sglang/srt/layers/broken.py" in reads.skipped
    assert "SyntaxError" in reads.skipped["sglang/srt/layers/broken.py"]


def test_mirror_through_a_local(reads):
    mirrors = reads.files["sglang/srt/layers/state.py"].mirrors
    assert [(m.name, m.chain) for m in mirrors] == [("_MODE", ("use_mode",))]


def test_hardware_gate_no_op_off_hopper(reads):
    assert verdicts(reads, "a100-80gb").verdicts["fast_path"].status is Status.NO_OP
    assert verdicts(reads, "rtx-pro-6000").verdicts["fast_path"].status is Status.NO_OP


def test_hardware_gate_conditional_on_hopper_names_what_remains(reads):
    v = verdicts(reads, "h100").verdicts["fast_path"]
    assert v.status is Status.CONDITIONAL
    assert "setting:use_mode" in v.needs


def test_setting_makes_it_no_op_everywhere(reads):
    v = verdicts(reads, "h100", settings={"use_mode": True}).verdicts["fast_path"]
    assert v.status is Status.NO_OP


def test_effective_unread_and_steers(reads):
    gg = verdicts(reads, "h100")
    assert gg.verdicts["everywhere"].status is Status.EFFECTIVE
    assert gg.verdicts["never_read"].status is Status.UNREAD
    assert gg.verdicts["steer_src"].status is Status.UNREAD
    assert gg.verdicts["steer_src"].steers == ["steer_dst"]


def test_no_op_evidence_names_the_predicate_definition(reads):
    data = gpu_json(verdicts(reads, "a100-80gb"))["flags"]["fast_path"]
    names = data["evidence"][0]["names"]
    hopper = next(n for n in names if n["name"] == "_is_hopper")
    assert hopper["value"] is False
    assert hopper["location"] == "sglang/srt/layers/fast.py:6"
    assert any(d["name"] == "is_hopper" and d["location"] == "sglang/srt/utils/__init__.py:14"
               for d in hopper["defined_by"])


def test_graph_edges(reads):
    g = build_graph(reads, set(DESTS))
    assert g.has_edge("setting:steer_src", "setting:steer_dst")
    assert any(n.startswith("predicate:") for n in focus(g, "fast_path", 1))
