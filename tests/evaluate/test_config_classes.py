"""isinstance(hf_config, SomeConfig) is decided the way SGLang's get_config picks the class:
the release's registry by model_type, transformers' own class otherwise."""

from __future__ import annotations

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ConfigView, Unknown
from flagscan.evaluate.world import ModelFacts, World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

COMMON = '''
class PretrainedConfig:
    pass


class HybridTextConfig(PretrainedConfig):
    model_type = "hybrid_text"


class HybridConfig(PretrainedConfig):
    model_type = "hybrid"
    sub_configs = {"text_config": HybridTextConfig}


class OtherConfig(PretrainedConfig):
    model_type = "other"


_CONFIG_REGISTRY = {cls.model_type: cls for cls in [HybridConfig, OtherConfig]}
'''

MOD = '''
from sglang.srt.utils.hf_transformers.common import HybridConfig, HybridTextConfig, OtherConfig


def main(config):
    text = config.text_config if hasattr(config, "text_config") else config
    return (isinstance(config, HybridConfig), isinstance(config, OtherConfig),
            isinstance(text, HybridTextConfig), isinstance(text, OtherConfig))


def union(config):
    return isinstance(config, HybridConfig | OtherConfig), isinstance(config, OtherConfig | HybridTextConfig)
'''


def _run(tmp_path, config, function: str = "main"):
    root = write_tree(tmp_path / "tree", {"sglang/srt/utils/hf_transformers/common.py": COMMON,
                                         "sglang/srt/mod.py": MOD})
    facts = ModelFacts(config, True, "config.json")
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}, facts))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    fn = interp.deref(module.globals[function], state)
    return interp.call(fn, [ConfigView(config, "config.json")], {}, state, module)


def test_a_model_type_the_registry_does_not_hold_is_no_instance_of_its_classes(tmp_path):
    assert _run(tmp_path, {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}) == (
        False, False, False, False)


def test_a_registered_model_type_is_an_instance_of_its_class_and_its_sub_configs_of_theirs(tmp_path):
    config = {"model_type": "hybrid", "architectures": ["HybridForCausalLM"],
              "text_config": {"model_type": "hybrid_text"}}
    assert _run(tmp_path, config) == (True, False, True, False)


def test_a_sub_config_the_parent_does_not_name_stays_unknown(tmp_path):
    config = {"model_type": "other", "architectures": ["OtherForCausalLM"], "text_config": {"model_type": "x"}}
    first, second, text_hybrid, _ = _run(tmp_path, config)
    assert (first, second) == (False, True)
    assert isinstance(text_hybrid, Unknown)


def test_a_union_of_classes_tests_each_member(tmp_path):
    config = {"model_type": "hybrid", "architectures": ["HybridForCausalLM"]}
    assert _run(tmp_path, config, "union") == (True, False)
