"""Two names of one outside thing (rules/world.toml): torch's dtype aliases are one object,
and a transformers config's `dtype` is its `torch_dtype` from transformers 4.56 on.

Without them SGLang 0.5.10's quantization check (`model_config.dtype not in
[torch.bfloat16, torch.half]`) was a certain refusal of DeepSeek-V3 FP8, a model it serves."""

from __future__ import annotations

import pytest

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ConfigView, Unknown
from flagscan.evaluate.packages import PackageFact, Packages
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import run, write_tree

MOD = '''
import torch


def dtypes():
    return (torch.half in [torch.bfloat16, torch.float16], torch.half == torch.float16,
            torch.long == torch.int64, torch.half == torch.bfloat16)


def config_dtype(config):
    return getattr(config, "dtype", None), hasattr(config, "dtype")
'''


def test_torch_dtype_aliases_are_one_object(tmp_path) -> None:
    value, _ = run(tmp_path, MOD, "dtypes")
    assert value == (True, True, True, False)


def _config_dtype(tmp_path, transformers: str | None, config: dict):
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": MOD})
    dists = Packages({} if transformers is None else
                     {"transformers": PackageFact("transformers", True, transformers, "--package")})
    world = World(profile_from_spec("h200"), {}, dists=dists)
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), world)
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    fn = interp.deref(module.globals["config_dtype"], state)
    return interp.call(fn, [ConfigView(config, "config.json")], {}, state, module)


@pytest.mark.parametrize(("transformers", "expected"), [("4.57.1", ("bfloat16", True)), ("4.51.3", (None, False))])
def test_config_dtype_is_torch_dtype_from_transformers_4_56(tmp_path, transformers, expected) -> None:
    assert _config_dtype(tmp_path, transformers, {"torch_dtype": "bfloat16"}) == expected


def test_config_dtype_is_not_known_without_the_transformers_version(tmp_path) -> None:
    value, has = _config_dtype(tmp_path, None, {"torch_dtype": "bfloat16"})
    assert isinstance(value, Unknown) and "package:transformers" in value.needs
    assert isinstance(has, Unknown)


def test_a_key_config_json_has_is_read_as_it_is(tmp_path) -> None:
    assert _config_dtype(tmp_path, None, {"dtype": "float16", "torch_dtype": "bfloat16"}) == ("float16", True)
