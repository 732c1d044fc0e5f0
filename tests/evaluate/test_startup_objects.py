"""What the startup run needs to hold the objects SGLang builds (0.5.20+ releases): a model
returned by `model.eval()`, a lazily initialised module global, a load format that is one of
a few strings, and a generator that yields after paths were joined."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import EnumMember, ModuleVal, Obj, Unknown
from flagscan.evaluate.startup.outside import OutsideBaseMethods, outside_constructs, outside_self
from flagscan.evaluate.startup.run import GlobalWrites
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import options, write_tree


class _Startup(GlobalWrites, OutsideBaseMethods, Interpreter):
    returns_self = outside_self(load("startup"))


def _call(tmp_path: Path, source: str, cls: type = _Startup, function: str = "main") -> Any:
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": source})
    world = World(profile_from_spec("h200"), {}, env_open=True)
    interp = cls(ModuleStore(root, tmp_path / "cache"), world)
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    try:
        return interp.call(interp.deref(module.globals[function], state), [], {}, state, module)
    except Dead:
        return Dead


MODEL = """
from torch import nn

class Model(nn.Module):
    def forward(self, batch):
        return batch

def load():
    model = Model()
    return model.eval()

def main():
    return load()
"""


def test_a_model_returned_by_eval_is_the_model(tmp_path) -> None:
    # 0.5.10-0.5.23 DefaultModelLoader.load_model ends in `return model.eval()`
    value = _call(tmp_path, MODEL)
    assert isinstance(value, Obj) and value.cls.name == "Model"


def test_a_method_the_rules_do_not_name_stays_unknown(tmp_path) -> None:
    value = _call(tmp_path, MODEL.replace("model.eval()", "model.state_dict()"))
    assert isinstance(value, Unknown)


def test_the_outside_base_methods_are_rule_data_with_a_schema() -> None:
    rules = load("startup")["outside_base"]
    assert rules and all(r["base"].count(".") >= 1 and (r.get("returns_self") or r.get("constructs")) for r in rules)
    assert all(m.isidentifier() for r in rules for m in [*r.get("returns_self", ()), *r.get("constructs", ())])
    assert set().union(*(r.keys() for r in rules)) <= {"base", "call", "returns_self", "stores", "constructs", "own"}


LAZY = """
import os

_platform = None

class Platform:
    def is_out_of_tree(self):
        return False

def _resolve():
    return Platform()

def current():
    global _platform
    if _platform is None:
        _platform = _resolve()
    return _platform

def main():
    if os.environ.get("SOME_SWITCH"):
        return current().is_out_of_tree()
    return None
"""


def test_a_global_initialised_on_a_path_is_known_on_that_path(tmp_path) -> None:
    # 0.5.23 platforms/__init__.py: `current_platform` is built on first access under `global`;
    # the path that built it (here under an unknown test) reads it back
    assert options(_call(tmp_path, LAZY)) == {False, None}


def test_a_global_rebound_on_one_path_is_not_known_on_a_path_forked_before(tmp_path) -> None:
    source = LAZY.replace("""def main():
    if os.environ.get("SOME_SWITCH"):
        return current().is_out_of_tree()
    return None""", """def main():
    if os.environ.get("SOME_SWITCH"):
        current()
        return 1
    return _platform""")
    # the path that did not call current() never sees the platform it built
    seen = options(_call(tmp_path, source))
    assert seen is None or not any(isinstance(o, Obj) for o in seen)


FORMAT = """
import enum
import os

class LoadFormat(str, enum.Enum):
    AUTO = "auto"
    MISTRAL = "mistral"
    DUMMY = "dummy"

def main():
    fmt = "mistral" if os.environ.get("MISTRAL") else "auto"
    member = LoadFormat(fmt.lower())
    if isinstance(member, type):
        return "a class"
    return member
"""


def test_a_format_that_is_one_of_a_few_strings_stays_one_of_their_members(tmp_path) -> None:
    # 0.5.23 LoadConfig._verify_load_format: LoadFormat(self.load_format.lower()), with
    # load_format "auto" or "mistral" (is_mistral_native_format needs the checkpoint's files)
    value = _call(tmp_path, FORMAT)
    assert isinstance(value, Unknown) and value.options is not None
    assert sorted(m.name for m in value.options if isinstance(m, EnumMember)) == ["AUTO", "MISTRAL"]
    assert len(value.options) == 2


GENERATOR = """
import os

def items():
    for name in ("a", "b"):
        if os.environ.get(name):
            yield name
        else:
            yield name.upper()
    yield "end"

def main():
    out = []
    for item in items():
        out.append(item)
    return out
"""


def test_a_generator_that_yields_after_joined_paths_is_followed_without_a_crash(tmp_path) -> None:
    value = _call(tmp_path, GENERATOR, cls=Interpreter)
    assert value is not Dead


DTYPES = """
import torch

def supported():
    return [torch.bfloat16, torch.half]

def main():
    if torch.float16 not in supported():
        raise ValueError("not supported")
    return "loaded"
"""


def test_an_outside_object_not_among_other_outside_paths_is_not_known_to_be_absent(tmp_path) -> None:
    # 0.5.10 model_loader/loader.py _get_quantization_config: `model_config.dtype not in
    # supported_dtypes` with [torch.bfloat16, torch.half]; torch.half is torch.float16, so the
    # ValueError is no certain startup crash
    value = _call(tmp_path, DTYPES)
    assert value == "loaded" or (isinstance(value, Unknown) and "loaded" in (options(value) or {"loaded"}))
    assert value is not Dead


def test_an_outside_object_among_its_own_path_is_found(tmp_path) -> None:
    assert _call(tmp_path, DTYPES.replace("torch.half]", "torch.float16]")) == "loaded"


BACKEND = """
class Backend:
    def forward_decode(self, q, forward_batch, save_kv_cache=True, k_rope=None):
        if save_kv_cache:
            assert k_rope is not None, "k_rope should be not None"
        return q

def main():
    return Backend()
"""


def test_a_serving_method_gets_its_default_parameters_from_the_caller_not_the_default(tmp_path) -> None:
    # 0.5.14 TRTLLMMLABackend.forward_decode(..., save_kv_cache=True, k_rope=None) asserts k_rope
    # is not None: the attention layer passes both, so calling with the defaults is no certain failure
    from flagscan.evaluate.startup.serving import BatchAsserts, ServingRun
    from flagscan.evaluate.startup.serving import _call as serving_call

    class Serving(BatchAsserts, Interpreter):
        pass

    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": BACKEND})
    interp = Serving(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    backend = interp.call(interp.deref(module.globals["main"], state), [], {}, state, module)
    out = ServingRun()
    interp.serving_active = True
    rule = {"name": "attention backend", "batch": ["forward_batch"]}
    serving_call(interp, state, backend, "forward_decode", rule, 1000, ("setting:",), frozenset(),
                 frozenset({"forward_mode"}), out)
    assert out.methods == 1 and out.rejections == [] and out.run_dependent == 1


PARAMETER = """
from torch import nn

class Embedding(nn.Module):
    def __init__(self):
        self.register_parameter("weight", None)

class Plain:
    pass

def main():
    embed = Embedding()
    del embed.weight
    embed.weight = "shared"
    return embed.weight

def plain():
    obj = Plain()
    del obj.weight
    return "deleted"
"""


def test_deleting_a_parameter_an_outside_base_may_hold_is_no_attribute_error(tmp_path) -> None:
    # 0.5.10 DeepseekV3ForCausalLM.set_embed_and_head: `del self.model.embed_tokens.weight` on the
    # weight nn.Module.register_parameter holds (the MTP draft model shares the target's)
    assert _call(tmp_path, PARAMETER) == "shared"


def test_deleting_an_attribute_of_a_tree_class_without_it_raises(tmp_path) -> None:
    assert _call(tmp_path, PARAMETER, function="plain") is Dead


PATCHED_FORWARD = """
import types
from torch import nn

class Layer(nn.Module):
    def forward(self, x):
        return x

def install(module):
    # 0.5.12 compilation/compile.py install_torch_compiled, on a module not known
    def trampoline(self, x):
        return x
    module.forward = types.MethodType(trampoline, module)

def main(unknown_module):
    layer = Layer()
    install(unknown_module)
    return layer(1)
"""


def test_calling_a_module_whose_forward_was_written_through_a_value_not_known_gives_a_value_not_known(
        tmp_path, monkeypatch) -> None:
    from flagscan.evaluate.startup.outside import outside_calls

    class _Calls(_Startup):
        calls = outside_calls(load("startup"))

    monkeypatch.setenv("FLAGSCAN_STRICT", "1")   # before: "a call of a Obj", a give-up

    def main(source: str, path: Path) -> Any:
        root = write_tree(path / "tree", {"sglang/srt/mod.py": source})
        interp = _Calls(ModuleStore(root, path / "cache"), World(profile_from_spec("h200"), {}, env_open=True))
        state = State({}, {})
        module = interp.import_module("sglang.srt.mod", state)
        assert isinstance(module, ModuleVal)
        return interp.call(interp.deref(module.globals["main"], state), [Unknown("a module not known")], {},
                           state, module)

    assert isinstance(main(PATCHED_FORWARD, tmp_path), Unknown)
    # unpatched, the instance's forward runs
    assert main(PATCHED_FORWARD.replace("    install(unknown_module)\n", ""), tmp_path / "plain") == 1


FROM_DICT = """
from transformers import PretrainedConfig

class VisionConfig(PretrainedConfig):
    def __init__(self, depth=28, hidden_size=1280, **kwargs):
        super().__init__(**kwargs)
        self.depth = depth
        self.hidden_size = hidden_size

def main():
    config = VisionConfig.from_dict({"depth": 24, "num_heads": 16})
    return config.depth, config.hidden_size
"""


class _Constructs(_Startup):
    constructs = outside_constructs(load("startup"))


def test_a_config_class_built_from_a_dict_runs_its_own_init(tmp_path) -> None:
    # 0.5.14 mimo_v2.py: `MiMoVLVisionConfig.from_dict(vision_config)`, transformers'
    # PretrainedConfig.from_dict being `cls(**config_dict)`: the depth is the dict's, the rest the defaults
    assert _call(tmp_path, FROM_DICT, _Constructs) == (24, 1280)
    # without the rule (or for a dict not known) what it builds is not known
    assert all(isinstance(v, Unknown) for v in _call(tmp_path / "off", FROM_DICT, _Startup))
    unknown_dict = FROM_DICT.replace('{"depth": 24, "num_heads": 16}', 'dict(os.environ)').replace(
        "from transformers", "import os\nfrom transformers")
    assert all(isinstance(v, Unknown) for v in _call(tmp_path / "unknown", unknown_dict, _Constructs))
