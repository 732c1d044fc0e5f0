"""The startup and serving phases on the surfaces: `report` (REJECTED with the raise as evidence),
`explain` (who raises on this setting), `diff` (rejections added and removed for a unit), and
lint FS305 and FS306, on the lint fixture tree (fixtures/trees/lint)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from tests.conftest import ROOT

TREE = "fixtures/trees/lint"
LLAMA = "tests/data/groundtruth/models/llama-3-8b"
REGISTRY = "sglang/srt/layers/attention/attention_registry.py:24"
BACKEND = "sglang/srt/layers/attention/flashattention_backend.py:24"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("surfaces-cache")


def _run(cache, *args: str, tree: str = TREE) -> tuple[int, dict]:
    import os

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, ["--sglang", tree, "--cache-dir", str(cache), "-q", *args])
    finally:
        os.chdir(old)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def test_report_a_flag_whose_startup_path_raises_is_rejected_with_the_raise(cache) -> None:
    code, doc = _run(cache, "report", "--format", "json", "--gpu", "rtx-pro-6000", "--model-config", LLAMA, "--",
                     "--model-path", "m", "--attention-backend", "flashinfer", "--tp-size", "1")
    backend = doc["flags"]["attention_backend"]
    assert code == 1 and backend["status"] == "REJECTED"
    assert backend["rejections"] == [{"location": REGISTRY, "condition": "torch.cuda.get_device_capability()[0] == 12",
                                      "message": "The flashinfer attention backend is not supported on SM120",
                                      "phase": "startup"}]
    # read on the raise's path, but the raise does not go away without them: not blamed
    assert doc["flags"]["model_path"]["status"] != "REJECTED" and doc["flags"]["tp_size"]["status"] != "REJECTED"


def test_report_the_same_flag_on_a_gpu_where_startup_passes_is_not_rejected(cache) -> None:
    _code, doc = _run(cache, "report", "--format", "json", "--gpu", "h200", "--model-config", LLAMA, "--",
                      "--model-path", "m", "--attention-backend", "flashinfer")
    assert doc["flags"]["attention_backend"]["status"] != "REJECTED"


def test_explain_lists_the_serving_raise_that_reads_the_setting_with_its_condition(cache) -> None:
    _code, doc = _run(cache, "explain", "speculative_algorithm", "--format", "json", "--gpu", "h200",
                      "--model-config", LLAMA, "--", "--model-path", "m", "--attention-backend", "fa3",
                      "--speculative-algorithm", "EAGLE")
    (raised,) = doc["raises"]
    assert (raised["gpu"], raised["phase"], raised["location"], raised["certain"]) == ("h200", "serving", BACKEND, False)
    assert "forward_batch.forward_mode.is_target_verify()" in raised["condition"]
    # a setting the serving path does not read has no such raise
    _code, other = _run(cache, "explain", "schedule_policy", "--format", "json", "--gpu", "h200",
                        "--model-config", LLAMA, "--", "--model-path", "m", "--attention-backend", "fa3",
                        "--speculative-algorithm", "EAGLE")
    assert other["raises"] == []


def test_explain_lists_the_startup_raise_and_marks_the_verdict_rejected(cache) -> None:
    _code, doc = _run(cache, "explain", "attention_backend", "--format", "json", "--gpu", "rtx-pro-6000",
                      "--model-config", LLAMA, "--", "--model-path", "m", "--attention-backend", "flashinfer")
    assert [(r["phase"], r["location"], r["certain"]) for r in doc["raises"]] == [("startup", REGISTRY, True)]
    assert doc["verdicts"]["rtx-pro-6000"]["status"] == "REJECTED"


def test_explain_without_a_command_does_not_run_startup(cache) -> None:
    _code, doc = _run(cache, "explain", "attention_backend", "--format", "json", "--gpu", "h200")
    assert doc["raises"] is None


@pytest.fixture(scope="module")
def fixed_tree(tmp_path_factory) -> Path:
    """The lint tree as a next release would fix it: fa3 verifies draft tokens, flashinfer runs on SM120."""
    root = tmp_path_factory.mktemp("next") / "tree"
    shutil.copytree(ROOT / TREE, root)
    backend = root / "sglang/srt/layers/attention/flashattention_backend.py"
    backend.write_text(backend.read_text().replace('raise NotImplementedError("fa3 does not support target verify '
                                                   'batches")', "return q"))
    registry = root / "sglang/srt/layers/attention/attention_registry.py"
    registry.write_text(registry.read_text().replace("== 12:", "== 13:"))
    version = root / "sglang/version.py"
    version.write_text('__version__ = "0.5.91"\n')
    return root


def test_diff_lists_startup_and_serving_rejections_removed_and_added_for_the_unit(cache, tmp_path,
                                                                                 fixed_tree) -> None:
    unit = tmp_path / "fa3.sh"
    unit.write_text("python -m sglang.launch_server --model-path m --attention-backend fa3 "
                    "--speculative-algorithm EAGLE\n")
    _code, doc = _run(cache, "diff", str(ROOT / TREE), str(fixed_tree), "--service", str(unit), "--gpu", "h200",
                      "--model-config", str(ROOT / LLAMA), "--format", "json")
    (change,) = doc["startup"]
    assert change["startup"] == {"old": "analysed", "new": "analysed"} and change["gpu"] == "h200"
    assert [(r["phase"], r["location"]) for r in change["removed"]] == [("serving", BACKEND)]
    assert change["added"] == []
    # the other way round, the bump adds it
    _code, back = _run(cache, "diff", str(fixed_tree), str(ROOT / TREE), "--service", str(unit), "--gpu", "h200",
                       "--model-config", str(ROOT / LLAMA), "--format", "json")
    assert [(r["phase"], r["location"]) for r in back["startup"][0]["added"]] == [("serving", BACKEND)]


def test_diff_a_certain_startup_crash_the_bump_adds_is_a_finding(cache, tmp_path, fixed_tree) -> None:
    unit = tmp_path / "fi.sh"
    unit.write_text("python -m sglang.launch_server --model-path m --attention-backend flashinfer\n")
    code, doc = _run(cache, "diff", str(fixed_tree), str(ROOT / TREE), "--service", str(unit), "--gpu", "rtx-pro-6000",
                     "--model-config", str(ROOT / LLAMA), "--format", "json")
    added = doc["startup"][0]["added"]
    assert [(r["phase"], r["location"], r["certain"]) for r in added] == [("startup", REGISTRY, True)]
    assert code == 1


def test_diff_where_a_revision_has_no_startup_path_says_not_followed(cache, tmp_path) -> None:
    unit = tmp_path / "m.sh"
    unit.write_text("python -m sglang.launch_server --model-path m\n")
    _code, doc = _run(cache, "diff", str(ROOT / TREE), str(ROOT / "fixtures/trees/lint-next"), "--service", str(unit),
                      "--gpu", "h200", "--model-config", str(ROOT / LLAMA), "--format", "json")
    (change,) = doc["startup"]
    assert change["startup"]["new"] == "not followed" and change["removed"] == [] and change["added"] == []


def test_fs305_and_fs306_say_many_serving_failures_once_with_their_count() -> None:
    from types import SimpleNamespace

    from flagscan.diagnostics import FileLocation, Severity
    from flagscan.evaluate.startup.results import StartupRaise
    from flagscan.lint.rules import fs305_possible_serving_failure as fs305
    from flagscan.lint.rules import fs306_possible_serving_assertion as fs306

    def raised(i: int, exception: str = "AssertionError") -> StartupRaise:
        return StartupRaise(f"sglang/srt/b.py:{i}", "forward_decode", exception, f"m{i}",
                            f"forward_batch.forward_mode.is_mode{i}()", False, (), "attention backend", "serving")

    def ctx(rejections):
        return SimpleNamespace(startup=SimpleNamespace(rejections=rejections), parsed=SimpleNamespace(values={}),
                               command_location=FileLocation("u.sh", 1, 1))

    # each code has one severity: the unsupported kind of batch is FS305's warning, the assertion FS306's info
    few = ctx([raised(1), raised(2, "NotImplementedError")])
    assert [(d.code, d.severity, d.data["condition"]) for d in fs305.check(few)] == [
        ("FS305", Severity.WARNING, "forward_batch.forward_mode.is_mode2()")]
    assert [(d.code, d.severity, d.data["condition"]) for d in fs306.check(few)] == [
        ("FS306", Severity.INFO, "forward_batch.forward_mode.is_mode1()")]
    many = ctx([raised(i) for i in range(1, 6)] + [raised(9, "NotImplementedError")])
    (summary,) = fs306.check(many)
    assert summary.severity is Severity.INFO and len(summary.data["checks"]) == 5
    assert summary.data["condition"] == "forward_batch.forward_mode.is_mode1()"   # the first in source order
    (unsupported,) = fs305.check(many)
    assert unsupported.severity is Severity.WARNING and "checks" not in unsupported.data
    # a startup-phase raise is FS303/FS304's, not FS305's or FS306's
    startup = StartupRaise("sglang/srt/c.py:1", "f", "RuntimeError", "m", "", True, (), "TP worker", "startup")
    assert fs305.check(ctx([startup])) == [] and fs306.check(ctx([startup])) == []


@pytest.mark.gives_up
def test_resolve_names_each_place_the_startup_code_was_not_followed(cache, tmp_path) -> None:
    # a count alone ("1 place(s) not followed") left the user to guess where the analysis stopped
    root = tmp_path / "stopping"
    shutil.copytree(ROOT / TREE, root)
    runner = root / "sglang/srt/model_executor/model_runner.py"
    runner.write_text(runner.read_text().replace(
        "        self.gpu_id = gpu_id\n",
        "        self.gpu_id = gpu_id\n        holder = (lambda: 1)\n        holder.attr = 2\n"))
    line = next(i for i, text in enumerate(runner.read_text().splitlines(), 1) if "holder.attr = 2" in text)
    args = ("resolve", "--gpu", "h200", "--model-config", str(ROOT / LLAMA))
    _code, doc = _run(cache, *args, "--format", "json", "--", "--model-path", "m", tree=str(root))
    (place,) = doc["startup"]["not_followed"]
    assert place.startswith(f"analysis stopped at sglang/srt/model_executor/model_runner.py:{line}: attribute write")
    text = CliRunner().invoke(main, ["--sglang", str(root), "--cache-dir", str(cache), "-q", *args, "--", "--model-path", "m"])
    assert f"model_runner.py:{line}" in text.stdout


def test_a_raise_in_a_loop_over_values_not_known_is_not_certain(cache, tmp_path) -> None:
    # the loop may have no element (no checkpoint shard found): its body was run once as if it
    # certainly had one, so a raise there was a certain startup crash
    root = tmp_path / "loop"
    shutil.copytree(ROOT / TREE, root)
    runner = root / "sglang/srt/model_executor/model_runner.py"
    runner.write_text("def list_shards(path):\n    import glob\n    return glob.glob(path + '/*.safetensors')\n\n"
                      + runner.read_text().replace(
                          "        self.gpu_id = gpu_id\n",
                          "        self.gpu_id = gpu_id\n        for shard in list_shards(server_args.model_path):\n"
                          "            raise ValueError('a shard refused')\n"))
    _code, doc = _run(cache, "resolve", "--gpu", "h200", "--model-config", str(ROOT / LLAMA), "--format", "json",
                      "--", "--model-path", "m", tree=str(root))
    assert not [r for r in doc["rejections"] if r["certain"]]
    assert doc["startup"]["run_dependent_raises"] >= 1   # counted: whether a shard exists is a fact of the run


def test_fs304_says_once_the_checks_that_only_a_config_not_at_hand_would_decide() -> None:
    from types import SimpleNamespace

    from flagscan.diagnostics import FileLocation
    from flagscan.evaluate.startup.results import StartupRaise
    from flagscan.lint.rules import fs304_possible_startup_crash as fs304

    def raised(i: int, needs: tuple[str, ...]) -> StartupRaise:
        return StartupRaise(f"sglang/srt/c.py:{i}", "f", "ValueError", f"m{i}", "", False, needs, "draft worker")

    ctx = SimpleNamespace(startup=SimpleNamespace(rejections=[
        raised(1, ("model:other",)), raised(2, ("model:other",)), raised(3, ("model",)),
        raised(4, ("model:other", "setting:tp_size")), raised(5, ("env:SGLANG_X",)),
        raised(6, ("model:tokenizer",)), raised(7, ("model", "model:tokenizer"))]),
        parsed=SimpleNamespace(values={}), command_location=FileLocation("u.sh", 1, 1))
    out = fs304.check(ctx)
    each = [d.evidence[0].location for d in out if "checks" not in d.data]
    # a check that also needs another fact is said on its own, with what it needs
    assert each == ["sglang/srt/c.py:4", "sglang/srt/c.py:5"]
    summaries = {d.message: d.data["checks"] for d in out if "checks" in d.data}
    assert summaries == {fs304.MODEL_MESSAGE.format(count=1): ["sglang/srt/c.py:3"],
                         fs304.OTHER_MESSAGE.format(count=2): ["sglang/srt/c.py:1", "sglang/srt/c.py:2"],
                         # what only the model's tokenizer files (and its config.json) would decide
                         fs304.TOKENIZER_MESSAGE.format(count=2): ["sglang/srt/c.py:6", "sglang/srt/c.py:7"]}
