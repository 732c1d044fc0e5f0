"""gates on a small SGLang-shaped tree: reads, guards, callers, mirrors, verdicts, a file that does not parse."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from flagscan.evaluate.gates.evaluator import Status
from flagscan.evaluate.gates.run import evaluate_gpu, gpu_json
from flagscan.extract.reads import load_reads
from flagscan.facts.graph import build_graph, focus
from flagscan.hardware import profile_from_spec
from tests.conftest import TREES

ROOT = TREES / "gates"
DESTS = ["fast_path", "use_mode", "steer_src", "steer_dst", "everywhere", "never_read", "env_gated", "after_loop",
         "hooked", "nvls", "symm", "reexported", "fused_kernel", "via_alias", "via_module", "via_local", "shadowed"]
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


def test_environment_is_open_for_gates(reads):
    v = verdicts(reads, "h100").verdicts["env_gated"]
    assert v.status is Status.CONDITIONAL and "env:FIXTURE_ENV_GATE" in v.needs
    given = evaluate_gpu(ROOT, None, INVENTORY, reads, profile_from_spec("h100"), env={"FIXTURE_ENV_GATE": "0"})
    assert given.verdicts["env_gated"].status is Status.NO_OP
    given = evaluate_gpu(ROOT, None, INVENTORY, reads, profile_from_spec("h100"), env={"FIXTURE_ENV_GATE": "1"})
    assert given.verdicts["env_gated"].status is Status.EFFECTIVE


def test_giving_the_flag_makes_an_or_guard_hold(reads):
    # `"X" not in os.environ or server_args.nvls or ...`: set, the flag makes the body run
    assert verdicts(reads, "h100").verdicts["nvls"].status is Status.EFFECTIVE


def test_nested_early_exit_makes_what_follows_conditional(reads):
    v = verdicts(reads, "h100").verdicts["after_loop"]
    assert v.status is Status.CONDITIONAL
    assert any("early exit" in n for n in v.needs)


def test_reference_call_site_is_not_a_call(reads):
    v = verdicts(reads, "h100").verdicts["hooked"]
    assert v.status is Status.CONDITIONAL
    assert any("reference" in n for n in v.needs)


def test_caller_in_a_file_without_settings_is_followed(reads):
    assert "sglang/srt/layers/reexport.py" in reads.files      # parsed for its call site only
    assert verdicts(reads, "h100").verdicts["reexported"].status is Status.NO_OP
    assert verdicts(reads, "mi300x").verdicts["reexported"].status is Status.EFFECTIVE


def test_verdicts_do_not_depend_on_what_else_is_evaluated(reads):
    every = verdicts(reads, "h100").verdicts
    for dest in DESTS:
        alone = evaluate_gpu(ROOT, None, INVENTORY, reads, profile_from_spec("h100"), flags=[dest]).verdicts[dest]
        assert alone.status is every[dest].status, dest


def test_environment_variables_are_graph_nodes(reads):
    g = build_graph(reads, set(DESTS))
    assert g.has_edge("env:FIXTURE_NVLS", "setting:nvls")
    assert not any(n.endswith(".os") for n in g)


def test_a_helper_that_returns_on_an_env_var_names_it(reads):
    # kernels_available() returns False or is_cuda() depending on FIXTURE_KERNELS: its
    # joined result needs that variable, and so does the read it gates
    v = verdicts(reads, "h100").verdicts["fused_kernel"]
    assert v.status is Status.CONDITIONAL and "env:FIXTURE_KERNELS" in v.needs
    assert verdicts(reads, "mi300x").verdicts["fused_kernel"].status is Status.NO_OP


def test_reads_follow_imports_and_aliases_not_spelling(reads):
    found = {r.dest(set(DESTS)) for f in reads.files.values() for r in f.reads}
    assert {"via_alias", "via_module", "via_local"} <= found   # `as` imports, a module alias, a local
    assert "shadowed" not in found      # a same-named function of another module is not the accessor
    assert verdicts(reads, "h100").verdicts["shadowed"].status is Status.UNREAD
