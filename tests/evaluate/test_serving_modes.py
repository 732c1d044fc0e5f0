"""The serving phase calls each method with a batch of each forward mode the configuration
produces (rules/startup.toml [serving_batch.modes]), the batch's mode bound to the release's own
enum member: a dispatch by mode takes SGLang's branch, a raise past every mode a dispatch handles
is reached only by the modes that reach it, and a mode the configuration never produces reaches
nothing (flagscan/evaluate/startup/serving.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.startup.interpreter import StartupInterpreter
from flagscan.evaluate.startup.results import StartupResult
from flagscan.evaluate.startup.run import startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree

TREE = {
    "sglang/srt/server_args.py": '''
class ServerArgs:
    def __init__(self, speculative_algorithm=None, disaggregation_mode="null", enable_mixed_chunk=False):
        self.speculative_algorithm = speculative_algorithm
        self.disaggregation_mode = disaggregation_mode
        self.enable_mixed_chunk = enable_mixed_chunk
''',
    "sglang/srt/model_executor/forward_batch_info.py": '''
from enum import IntEnum, auto


class ForwardMode(IntEnum):
    EXTEND = auto()
    DECODE = auto()
    MIXED = auto()
    IDLE = auto()
    TARGET_VERIFY = auto()
    PREBUILT = auto()

    def is_decode(self):
        return self == ForwardMode.DECODE

    def is_idle(self):
        return self == ForwardMode.IDLE

    def is_decode_or_idle(self):
        return self == ForwardMode.DECODE or self == ForwardMode.IDLE

    def is_target_verify(self):
        return self == ForwardMode.TARGET_VERIFY

    def is_mixed(self):
        return self == ForwardMode.MIXED

    def is_extend(self):
        return self == ForwardMode.EXTEND or self == ForwardMode.MIXED or self == ForwardMode.TARGET_VERIFY
''',
    "sglang/srt/managers/tp_worker.py": '''
class Backend:
    def init_forward_metadata(self, forward_batch):
        if forward_batch.forward_mode.is_decode_or_idle():
            return "decode"
        elif forward_batch.forward_mode.is_extend():
            return "extend"
        else:
            raise ValueError("Invalid forward mode")

    def forward(self, q, layer, forward_batch):
        if forward_batch.forward_mode.is_target_verify():
            raise NotImplementedError("verify is not supported")
        if forward_batch.forward_mode.is_mixed() and forward_batch.spec_info is not None:
            raise NotImplementedError("mixed chunks with drafts")
        return q


class ModelRunner:
    def __init__(self):
        self.attn_backend = Backend()

    def forward_decode(self, forward_batch):
        if not forward_batch.forward_mode.is_decode():
            raise RuntimeError("forward_decode got another mode")
        return forward_batch


class TpModelWorker:
    def __init__(self, server_args):
        self.model_runner = ModelRunner()
''',
}
BACKEND = "sglang/srt/managers/tp_worker.py"
INVALID = f"{BACKEND}:9"
VERIFY = f"{BACKEND}:13"
MIXED = f"{BACKEND}:15"
DECODE_ONLY = f"{BACKEND}:25"


def _run(tmp_path: Path, modes: dict[str, Any] | None = None, mode_test: bool = True, **settings: Any
         ) -> dict[str, Any]:
    return {r.location: r for r in _result(tmp_path, modes, mode_test, **settings).rejections if r.phase == "serving"}


def _result(tmp_path: Path, modes: dict[str, Any] | None = None, mode_test: bool = True, **settings: Any
            ) -> StartupResult:
    real = load("startup")
    serving_batch = dict(real["serving_batch"])
    if modes is not None:
        serving_batch["modes"] = modes
    runner: dict[str, Any] = {"name": "model runner", "entry": "TP worker", "objects": ["model_runner"],
                              "methods": ["forward_decode"], "batch": ["forward_batch"]}
    if mode_test:
        runner["mode_test"] = {"forward_decode": "is_decode"}
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                        "args": {"server_args": "record"}}],
             "needs": real["needs"], "serving_batch": serving_batch, "serving_budget": real["serving_budget"],
             "serving": [{"name": "attention backend", "entry": "TP worker", "objects": ["model_runner.attn_backend"],
                          "methods": ["init_forward_metadata", "forward"], "batch": ["forward_batch"]}, runner]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    result: StartupResult = run_startup_entries(StartupInterpreter(ModuleStore(root, tmp_path / "cache"), world),
                                                rules, settings)
    return result


def test_the_result_says_which_modes_the_batches_had(tmp_path) -> None:
    # IDLE batches may come (rule data: may); PREBUILT never reaches a forward; no MIXED without mixed chunks
    assert _result(tmp_path, speculative_algorithm="EAGLE").serving["modes"] == ["EXTEND", "DECODE", "IDLE?",
                                                                                  "TARGET_VERIFY"]
    unnamed = {**load("startup")["serving_batch"]["modes"], "enum": "sglang.srt.nowhere.ForwardMode"}
    assert _result(tmp_path, unnamed).serving["modes"] == []


def test_modes_the_configuration_never_produces_reach_nothing(tmp_path) -> None:
    # no speculative decoding, no disaggregation decode server, no mixed chunks: the verify raise,
    # the mixed-chunk raise and the dispatch's "Invalid forward mode" are never reached
    assert _run(tmp_path) == {}


def test_a_raise_only_one_produced_mode_reaches_is_certain_and_names_the_mode(tmp_path) -> None:
    found = _run(tmp_path, speculative_algorithm="EAGLE")
    assert set(found) == {VERIFY}
    assert found[VERIFY].certain and found[VERIFY].condition == "a TARGET_VERIFY batch"
    modes = {**load("startup")["serving_batch"]["modes"]}
    modes["when"] = {**modes["when"], "PREBUILT": {"equals": ["disaggregation_mode", "decode"]}}
    found = _run(tmp_path, modes, disaggregation_mode="decode")
    assert set(found) == {INVALID}
    assert found[INVALID].certain and found[INVALID].condition == "a PREBUILT batch"
    assert _run(tmp_path, modes, disaggregation_mode="prefill") == {}


def test_a_mode_that_never_reaches_a_forward_reaches_nothing(tmp_path) -> None:
    # SGLang's scheduler returns before the model's forward for the disaggregation decode
    # server's PREBUILT placeholders: the dispatch's "Invalid forward mode" is never reached
    assert load("startup")["serving_batch"]["modes"]["when"]["PREBUILT"] == {"never": True}
    assert _run(tmp_path, disaggregation_mode="decode") == {}


def test_a_test_of_the_batch_beyond_its_mode_stays_the_condition_and_makes_it_possible(tmp_path) -> None:
    found = _run(tmp_path, enable_mixed_chunk=True)
    assert set(found) == {MIXED}
    assert not found[MIXED].certain
    assert found[MIXED].condition.startswith("a MIXED batch: ") and "spec_info" in found[MIXED].condition


def test_a_mode_the_rule_data_says_may_be_sent_is_possible(tmp_path) -> None:
    modes = {**load("startup")["serving_batch"]["modes"]}
    modes["when"] = {**modes["when"], "TARGET_VERIFY": {"truthy": "speculative_algorithm", "may": True}}
    found = _run(tmp_path, modes, speculative_algorithm="EAGLE")
    assert set(found) == {VERIFY} and not found[VERIFY].certain


def test_a_member_the_rule_data_does_not_name_may_be_sent(tmp_path) -> None:
    modes = {**load("startup")["serving_batch"]["modes"]}
    modes["when"] = {k: v for k, v in modes["when"].items() if k != "PREBUILT"}
    found = _run(tmp_path, modes)
    assert set(found) == {INVALID} and not found[INVALID].certain


def test_a_method_gets_only_the_modes_its_dispatcher_hands_it(tmp_path) -> None:
    # forward_decode is called only where forward_mode.is_decode() holds (mode_test)
    assert DECODE_ONLY not in _run(tmp_path, speculative_algorithm="EAGLE")
    found = _run(tmp_path, mode_test=False, speculative_algorithm="EAGLE")
    assert found[DECODE_ONLY].certain and "EXTEND" in found[DECODE_ONLY].condition


def test_without_the_enum_the_mode_is_a_batch_attribute_not_known(tmp_path) -> None:
    modes = {**load("startup")["serving_batch"]["modes"], "enum": "sglang.srt.nowhere.ForwardMode"}
    found = _run(tmp_path, modes)
    # every test of the mode is a test of the batch's kind: the raises are possible, under those tests
    assert {INVALID, VERIFY, MIXED} <= set(found)
    assert not any(r.certain for r in found.values())
    assert "is_target_verify()" in found[VERIFY].condition


def test_resolve_text_names_the_modes_the_batches_had() -> None:
    from flagscan.report.startup_text import render

    result = StartupResult(serving={"methods": 8, "modes": ["EXTEND", "IDLE?"], "not_built": [], "exhausted": []})
    (line,) = [x for x in render(result) if "serving:" in x]
    assert "8 method(s) called with a batch of each forward mode EXTEND, IDLE?" in line and "may come" in line
    result = StartupResult(serving={"methods": 3, "modes": [], "not_built": [], "exhausted": []})
    (line,) = [x for x in render(result) if "serving:" in x]
    assert "whose forward mode is not known" in line


def test_a_startup_run_that_spent_its_budget_does_not_say_it_was_followed_to_the_end() -> None:
    from flagscan.evaluate.startup.results import StartupResult
    from flagscan.report.startup_text import render

    spent = StartupResult(completed=True, stopped=["f: analysis budget exhausted"] * 3,
                          not_followed=["analysis stopped at a.py:1: the step budget (9) in f; what it returns or "
                                        "writes is unknown", "analysis stopped at b.py:2: recursion of g"])
    lines = render(spent)
    assert not any("a.py:1" in line for line in lines) and any("b.py:2" in line for line in lines)
    assert any("1 other place(s) not followed" in line for line in lines)
    assert lines.count("  startup not analysed: f: analysis budget exhausted") == 1
    assert any("step budget ran out" in line for line in lines)
    assert not any("followed to the end" in line for line in lines)
    assert any("followed to the end" in line for line in render(StartupResult(completed=True)))
