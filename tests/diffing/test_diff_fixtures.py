"""flagscan diff on the lint fixture tree and its hook-era successor: every kind of change, once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.diffing.run import diff_revisions
from flagscan.extract.effects import extract_effects
from flagscan.ruledata import load
from tests.lint.helpers import ROOT, target

OLD, NEW = "fixtures/trees/lint", "fixtures/trees/lint-next"
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("FLAGSCAN_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("diff-cache"))
    return diff_revisions(target(OLD, cache), target(NEW, cache), {"version": "0.5.90"}, {"version": "0.5.91"})


def test_flags(report) -> None:
    f = report.flags
    assert f.added == ("allreduce_fusion_backend",)
    # --debug-depth: the lint tree's FS402 example, which the next tree does not have
    assert f.removed == ("debug_depth", "hybrid_ratio")
    assert f.options_removed == ("--debug-depth", "--hybrid-ratio", "--stream-output")
    assert f.renamed == ({"from": "--enable-allreduce-fusion", "to": "--allreduce-fusion-backend"},)
    assert {(c["dest"], c["field"]) for c in f.changed} == {
        ("attention_backend", "choices"), ("schedule_policy", "default"), ("tokenizer_worker_num", "type")}


def test_effects_moved_into_hooks_are_not_changes(report) -> None:
    e = report.effects
    touched = {x["target"] for x in e.added + e.removed} | {c["target"] for c in e.changed}
    assert "max_running_requests" not in touched      # _handle_speculative_decoding -> speculative_hook
    assert "tokenizer_worker_num" not in touched      # nested if -> early return: same condition
    assert e.moved == 4
    assert [(c["target"], c["what"]) for c in e.changed] == [("disable_piecewise_cuda_graph", "condition")]
    assert [(x["target"], x["value"]) for x in e.added if x["kind"] == "write"] == [("chunked_prefill_size", "4096")]
    assert [x["target"] for x in e.removed if x["kind"] == "write"] == ["debug_depth", "schedule_policy"]
    assert [r["location"] for r in e.rejections_added] == ["sglang/srt/arg_groups/parallel_hook.py:12"]


def test_gates_are_not_analysed_rather_than_empty(report) -> None:
    gates = report.to_json()["gates"]
    if report.gates is None:
        assert gates["analysed"] is False and gates["changed"] is None


def test_effect_rules_data_is_well_formed() -> None:
    data = load("effects")
    assert data["record"]["entry_methods"] and data["hooks"]["globs"]
    assert all(isinstance(i, int) for i in data["writers"].values())
    assert extract_effects(ROOT / OLD) and extract_effects(ROOT / NEW)


def _cli(cache, *args):
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(main, ["--cache-dir", str(cache), "-q", "diff", OLD, NEW, *args])
    finally:
        os.chdir(old)


def _snapshot(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if not UPDATE:
            pytest.fail(f"wrote new snapshot {path}; review it and run again")
    assert text == path.read_text(), f"{name} changed; FLAGSCAN_UPDATE_GOLDEN=1 rewrites the snapshot"


def test_cli_json_contract_and_units(tmp_path) -> None:
    result = _cli(tmp_path, "--service", "tests/lint/data/demo.service", "--gpu", "h200", "--format", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "flagscan/diff/v1"
    assert set(doc["flags"]) >= {"added", "removed", "renamed", "changed"}
    assert set(doc["effects"]) >= {"added", "removed", "changed"}
    assert set(doc["gates"]) >= {"added", "removed", "changed"}
    codes = [d["code"] for u in doc["units"] for d in u["diagnostics"]]
    assert "FS501" in codes  # --stream-output is gone in 0.5.91


def test_markdown_and_text_snapshots(tmp_path) -> None:
    # Revision-level only: what a unit resolves to at the hook-era tree is the resolution
    # engine's business and is asserted on its own (test_cli_json_contract_and_units).
    _snapshot("lint-to-next.md", _cli(tmp_path, "--format", "markdown").stdout)
    _snapshot("lint-to-next.txt", _cli(tmp_path).stdout)


def test_sarif_is_valid(tmp_path) -> None:
    result = _cli(tmp_path, "--service", "tests/lint/data/demo.service", "--gpu", "h200", "--format", "sarif")
    doc = json.loads(result.stdout)
    schema = json.loads((ROOT / "tests/lint/data/sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(schema).validate(doc)
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} >= {"FS501", "FS504"}


@pytest.mark.parametrize("args", [["--service", "tests/lint/data/demo.service"],
                                  ["--gpu", "no-such-gpu", "--service", "tests/lint/data/demo.service"]])
def test_bad_input_exit_2(tmp_path, args) -> None:
    result = _cli(tmp_path, *args)
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_unknown_revision_exit_2(tmp_path) -> None:
    result = CliRunner().invoke(main, ["--cache-dir", str(tmp_path), "--offline", "-q", "diff", "0.0.1", NEW])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_gate_changes_per_gpu(tmp_path) -> None:
    doc = json.loads(_cli(tmp_path, "--gpu", "rtx-pro-6000", "--format", "json").stdout)
    assert doc["gates"]["analysed"] is True
    assert {"gpu": "rtx-pro-6000", "dest": "enable_allreduce_fusion", "old": "NO_OP", "new": "UNREAD"}.items() <= \
        next(c for c in doc["gates"]["changed"] if c["dest"] == "enable_allreduce_fusion").items()
