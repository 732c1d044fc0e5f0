"""Properties of SGLang's config classes read on a config from config.json during startup: 0.5.9+
Qwen3_5ForCausalLM picks each decoder layer by `config.layers_block_type[idx]`, a property of
Qwen3NextConfig, so no layer of a hybrid model was built (and no FP8 block-shape check of its
linear layers reached)."""

from __future__ import annotations

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ConfigView, Unknown
from flagscan.evaluate.startup.config_props import ConfigProperties
from flagscan.evaluate.world import ModelFacts, World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

COMMON = '''
class PretrainedConfig:
    pass


class HybridTextConfig(PretrainedConfig):
    model_type = "hybrid_text"

    def __init__(self, num_hidden_layers=4, full_attention_interval=2, head_dim=None, **kwargs):
        self.num_hidden_layers = num_hidden_layers
        self.full_attention_interval = full_attention_interval
        self.head_dim = head_dim if head_dim is not None else 128

    @property
    def layers_block_type(self):
        out = []
        for i in range(self.num_hidden_layers):
            out.append("attention" if (i + 1) % self.full_attention_interval == 0 else "linear")
        return out

    @property
    def rewritten(self):
        return self.head_dim * 2


class HybridConfig(PretrainedConfig):
    model_type = "hybrid"
    sub_configs = {"text_config": HybridTextConfig}


_CONFIG_REGISTRY = {cls.model_type: cls for cls in [HybridConfig]}
'''

MOD = '''
def layers(config):
    return config.text_config.layers_block_type


def rewritten(config):
    return config.text_config.rewritten
'''

CONFIG = {"model_type": "hybrid", "architectures": ["HybridForCausalLM"],
          "text_config": {"model_type": "hybrid_text", "num_hidden_layers": 4, "full_attention_interval": 2,
                          "head_dim": 64}}


class _Startup(ConfigProperties, Interpreter):
    pass


def _run(tmp_path, function: str, cls: type = _Startup, on: bool = True):
    root = write_tree(tmp_path / "tree", {"sglang/srt/utils/hf_transformers/common.py": COMMON,
                                         "sglang/srt/mod.py": MOD})
    interp = cls(ModuleStore(root, tmp_path / "cache"),
                 World(profile_from_spec("h200"), {}, ModelFacts(CONFIG, True, "config.json")))
    interp.config_properties = on
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    fn = interp.deref(module.globals[function], state)
    return interp.call(fn, [ConfigView(CONFIG, "config.json")], {}, state, module)


def test_a_property_of_the_config_class_is_computed_from_the_config_json_keys(tmp_path) -> None:
    assert _run(tmp_path, "layers") == ["linear", "attention", "linear", "attention"]


def test_a_property_reading_an_attribute_the_constructor_rewrites_stays_unknown(tmp_path) -> None:
    # HybridTextConfig.__init__ assigns head_dim from an expression, not the key itself
    assert isinstance(_run(tmp_path, "rewritten"), Unknown)


def test_outside_the_startup_run_the_key_stays_unknown(tmp_path) -> None:
    assert isinstance(_run(tmp_path, "layers", on=False), Unknown)
