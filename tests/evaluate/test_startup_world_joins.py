"""Joined paths at startup keep what their unknown test needed (flagscan/evaluate/startup/joins.py): a
value the two sides of `if X:` set differently is not known for want of what X needs, so a raise
under a test of it is a possible rejection that names that need, not a raise of the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.startup.joins import JoinNeeds
from flagscan.evaluate.startup.results import StartupResult
from flagscan.evaluate.startup.run import GlobalWrites, SurvivalTracking, startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree

# 0.5.10 shape: ModelConfig sets attention_arch by the (draft) model's architectures, ModelRunner keeps
# use_mla_backend = attention_arch == MLA, create_trtllm_mla_backend refuses a runner without MLA.
TREE = {
    "sglang/srt/server_args.py": '''
class ServerArgs:
    def __init__(self, attention_backend="trtllm_mla"):
        self.attention_backend = attention_backend
''',
    "sglang/srt/managers/tp_worker.py": '''
import os


class ModelConfig:
    def __init__(self):
        self.kind = "config"
        if os.environ.get("DRAFT_IS_DEEPSEEK"):
            self.attention_arch = "MLA"
        else:
            self.attention_arch = "MHA"


def create_trtllm_mla_backend(runner):
    if not runner.use_mla_backend:
        raise ValueError("trtllm_mla backend can only be used with MLA models.")


def check_page_size():
    if os.environ.get("SMALL_PAGES"):
        page = 16
    else:
        page = 64
    if page != 64:
        raise ValueError("the page size must be 64")


class TpModelWorker:
    def __init__(self, server_args):
        self.model_config = ModelConfig()
        self.use_mla_backend = self.model_config.attention_arch == "MLA"
        if server_args.attention_backend == "trtllm_mla":
            create_trtllm_mla_backend(self)
        check_page_size()
''',
}

BACKEND = "sglang/srt/managers/tp_worker.py:16"
PAGE = "sglang/srt/managers/tp_worker.py:25"


class _Startup(JoinNeeds, SurvivalTracking, GlobalWrites, Interpreter):
    pass


class _Unjoined(SurvivalTracking, GlobalWrites, Interpreter):
    pass


def _run(tmp_path: Path, cls: type = _Startup, **settings: Any) -> StartupResult:
    real = load("startup")
    rules = {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                        "args": {"server_args": "record"}}], "needs": real["needs"]}
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    world.env_open = True   # the environment variables are not given: each test of one is unknown
    return run_startup_entries(cls(ModuleStore(root, tmp_path / "cache"), world), rules, settings)


def _by_location(result: StartupResult) -> dict[str, tuple[bool, tuple[str, ...]]]:
    return {r.location: (r.certain, r.needs) for r in result.rejections}


def test_an_attribute_set_on_both_sides_needs_what_the_test_needed(tmp_path) -> None:
    found = _by_location(_run(tmp_path))
    assert found[BACKEND] == (False, ("env:DRAFT_IS_DEEPSEEK",))


def test_a_local_set_on_both_sides_needs_what_the_test_needed(tmp_path) -> None:
    assert _by_location(_run(tmp_path))[PAGE] == (False, ("env:SMALL_PAGES",))


def test_without_the_join_the_raises_were_of_the_run(tmp_path) -> None:
    result = _run(tmp_path, _Unjoined)
    assert BACKEND not in _by_location(result) and PAGE not in _by_location(result)
    assert result.run_dependent >= 2


def test_a_setting_that_avoids_the_test_gives_no_rejection(tmp_path) -> None:
    assert BACKEND not in _by_location(_run(tmp_path, attention_backend="triton"))
