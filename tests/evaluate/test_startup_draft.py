"""The draft worker of speculative decoding at startup (rules/startup.toml [[entry]] "draft
worker"): Scheduler.maybe_init_draft_worker builds SpeculativeAlgorithm.create_worker's class
on a Scheduler whose constructor is not run, so what the draft worker's construction checks
(0.5.18 MultiLayerEagleDraftWorker's num_draft_tokens == num_steps + 1 assert) is reached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Unknown
from flagscan.evaluate.startup.run import GlobalWrites, SurvivalTracking
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree

TREE = {
    "sglang/srt/server_args.py": '''
class ServerArgs:
    def __init__(self, speculative_algorithm=None, speculative_num_steps=5, speculative_num_draft_tokens=8):
        self.speculative_algorithm = speculative_algorithm
        self.speculative_num_steps = speculative_num_steps
        self.speculative_num_draft_tokens = speculative_num_draft_tokens
''',
    "sglang/srt/managers/tp_worker.py": '''
class TpModelWorker:
    def __init__(self, server_args, gpu_id):
        self.server_args = server_args
        self.gpu_id = gpu_id
''',
    "sglang/srt/speculative/spec_info.py": '''
from enum import Enum, auto


class SpeculativeAlgorithm(Enum):
    NONE = auto()
    EAGLE = auto()

    @classmethod
    def from_string(cls, name):
        if name is None:
            return cls.NONE
        return cls[name.upper()]

    def is_none(self):
        return self == SpeculativeAlgorithm.NONE

    def create_worker(self, server_args):
        from sglang.srt.speculative.draft_worker import DraftWorker

        return DraftWorker
''',
    "sglang/srt/speculative/draft_worker.py": '''
class DraftWorker:
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        assert server_args.speculative_num_draft_tokens == server_args.speculative_num_steps + 1, (
            "multi-layer EAGLE requires speculative_num_draft_tokens == speculative_num_steps + 1"
        )
        self.target_worker = target_worker
''',
    "sglang/srt/managers/scheduler.py": '''
class Scheduler:
    def __init__(self, server_args, port_args):
        raise RuntimeError("sockets: not part of the startup run")

    def maybe_init_draft_worker(self):
        if self.spec_algorithm.is_none():
            self.draft_worker = None
            return
        # the keyword arguments as a dict with a value not known (the NCCL port chosen at launch)
        draft_worker_kwargs = dict(server_args=self.server_args, gpu_id=self.gpu_id, nccl_port=self.nccl_port,
                                   target_worker=self.tp_worker)
        DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
        self.draft_worker = DraftWorkerClass(**draft_worker_kwargs)
''',
}


class _Startup(SurvivalTracking, GlobalWrites, Interpreter):
    pass


def _rules() -> dict[str, Any]:
    """The TP worker and the draft worker entries as rules/startup.toml writes them, on this tree."""
    real = {e["name"]: e for e in load("startup")["entry"]}
    draft = dict(real["draft worker"])
    return {"entry": [{"name": "TP worker", "phase": "startup", "class": real["TP worker"]["class"],
                       "args": {"server_args": "record", "gpu_id": "const:0"}}, draft],
            "needs": {"config": ["model", "setting:", "env:", "package:", "gpu"]}}


def _run(tmp_path: Path, **settings: Any):
    root = write_tree(tmp_path / "tree", TREE)
    interp = _Startup(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    return run_startup_entries(interp, _rules(), settings)


def test_the_draft_worker_is_built_and_its_assert_is_a_certain_startup_crash(tmp_path) -> None:
    result = _run(tmp_path, speculative_algorithm="EAGLE")
    assert [(r.exception, r.certain, r.entry, r.location) for r in result.rejections] == [
        ("AssertionError", True, "draft worker", "sglang/srt/speculative/draft_worker.py:4")]


def test_parameters_that_satisfy_the_draft_worker_start(tmp_path) -> None:
    result = _run(tmp_path, speculative_algorithm="EAGLE", speculative_num_draft_tokens=6)
    assert result.rejections == [] and result.completed


def test_without_speculative_decoding_no_draft_worker_is_built(tmp_path) -> None:
    result = _run(tmp_path)
    assert result.rejections == [] and result.completed


def test_the_draft_entry_takes_its_attributes_from_known_value_kinds() -> None:
    (draft,) = [e for e in load("startup")["entry"] if e.get("method")]
    assert draft["class"].startswith("sglang.") and draft["method"].isidentifier()
    assert draft["attributes"]["tp_worker"] == "entry:TP worker"
    assert draft["attributes"]["spec_algorithm"]["call"].startswith("sglang.")


@pytest.mark.gives_up
def test_a_dict_of_items_that_are_not_pairs_is_not_followed_rather_than_a_crash(tmp_path) -> None:
    # building the 0.5.10 Kimi-K2.6 EAGLE3 draft worker reached dict() of a list whose items
    # are not pairs: Python raises there; flagscan gives up on the value (it crashed before)
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": "def main():\n    return dict([1, 2])\n"})
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    value = interp.call(interp.deref(module.globals["main"], state), [], {}, state, module)
    assert isinstance(value, Unknown)


def test_the_config_json_given_is_the_model_paths_a_draft_models_is_its_own(tmp_path) -> None:
    # the resolution's world too (0.5.14 speculative_hook.py reads the draft model's config to
    # name the algorithm): a draft path gets that model's config.json where this machine has
    # it, else a config not known; never the --model-path model's
    import json

    from flagscan.evaluate.interp.values import ConfigView
    from flagscan.evaluate.world import ModelFacts

    draft_dir = tmp_path / "draft"
    draft_dir.mkdir()
    (draft_dir / "config.json").write_text(json.dumps({"model_type": "llama", "architectures": ["LlamaForCausalLMEagle3"]}))
    root = write_tree(tmp_path / "tree", {
        "sglang/srt/utils/hf_transformers_utils.py": "def get_config(model, trust_remote_code=False):\n"
                                                      "    raise OSError('reads the hub')\n",
        "sglang/srt/mod.py": "from sglang.srt.utils.hf_transformers_utils import get_config\n\n"
                             "def main(local):\n"
                             "    return get_config('org/target'), get_config('org/draft'), get_config(model=local)\n"})
    world = World(profile_from_spec("h200"), {}, ModelFacts({"model_type": "deepseek_v3"}, True, "c.json"), "org/target")
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), world)
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    target, draft, local = interp.call(interp.deref(module.globals["main"], state), [str(draft_dir)], {}, state, module)
    assert isinstance(target, ConfigView) and target.data["model_type"] == "deepseek_v3"
    assert isinstance(draft, Unknown) and draft.needs == {"model:other"}
    assert isinstance(local, ConfigView) and local.data["architectures"] == ["LlamaForCausalLMEagle3"]
