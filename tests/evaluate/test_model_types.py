"""The model-config loader's refusal of a model_type the pinned transformers does not register
(flagscan/source/hf_config_types.py reads the registry from the transformers wheel;
flagscan/evaluate/model_types.py decides; rules/model_types.toml says where)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flagscan.evaluate.model_types import refusal
from flagscan.ruledata import load
from flagscan.source.hf_config_types import MODEL_TYPE, ConfigTypes, config_types, parse, read_wheel
from tests.conftest import ROOT

RULES = load("model_types")
AUTO = RULES["registry"]["file"]
SIBLING = AUTO.rsplit("/", 1)[0] + "/auto_mappings.py"

# A transformers-shaped configuration_auto.py (written here): the table, a module-level update,
# and AutoConfig.from_pretrained's raise for a model type not in it.
CONFIGURATION_AUTO = '''
from collections import OrderedDict

CONFIG_MAPPING_NAMES = OrderedDict[str, str](
    [
        ("llama", "LlamaConfig"),
        ("qwen3", "Qwen3Config"),
    ]
)
CONFIG_MAPPING_NAMES.update({"mlcd": "MLCDVisionConfig"})
CONFIG_MAPPING = _LazyConfigMapping(CONFIG_MAPPING_NAMES)


class AutoConfig:
    @classmethod
    def from_pretrained(cls, name, **kwargs):
        if "model_type" in config_dict:
            try:
                config_class = CONFIG_MAPPING[config_dict["model_type"]]
            except KeyError:
                raise ValueError(
                    f"The checkpoint you are trying to load has model type `{config_dict['model_type']}` "
                    "but Transformers does not recognize this architecture."
                )
        raise ValueError(f"Unrecognized model in {name}. Should have a `model_type` key")
'''


def _reader(files: dict[str, str]):
    return files.get


def test_the_rule_data_has_its_keys() -> None:
    assert {"distribution", "file", "mapping", "loader_class", "loader_method", "model_type_key"} <= set(RULES["registry"])
    assert RULES["loader"]["calls"] and all(isinstance(c, str) and "." in c for c in RULES["loader"]["calls"])
    assert RULES["loader"]["remote_code_map"] and RULES["loader"]["remote_code_key"]


def test_the_registry_and_message_are_read_from_the_source() -> None:
    types = parse(_reader({AUTO: CONFIGURATION_AUTO}), "t.whl", "9.9")
    assert types is not None and types.model_types == ("llama", "mlcd", "qwen3")
    assert types.message.count(MODEL_TYPE) == 1
    assert types.message_for("qwen3_5_moe").startswith("The checkpoint you are trying to load has model type `qwen3_5_moe`")
    assert types.origin.startswith(f"t.whl:{AUTO}:")


def test_the_table_is_followed_into_the_module_it_is_imported_from() -> None:
    # transformers 5.19 defines the table in auto_mappings.py and extends it in configuration_auto.py
    auto = CONFIGURATION_AUTO.replace('CONFIG_MAPPING_NAMES = OrderedDict[str, str](\n    [\n        ("llama", '
                                      '"LlamaConfig"),\n        ("qwen3", "Qwen3Config"),\n    ]\n)\n',
                                      "from .auto_mappings import CONFIG_MAPPING_NAMES\n"
                                      'CONFIG_MAPPING_NAMES = OrderedDict(**{"gpt-sw3": "GPT2Config"}, **CONFIG_MAPPING_NAMES)\n')
    sibling = 'CONFIG_MAPPING_NAMES = OrderedDict([("llama", "LlamaConfig")])\n'
    types = parse(_reader({AUTO: auto, SIBLING: sibling}), "t.whl", "9.9")
    assert types is not None and types.model_types == ("gpt-sw3", "llama", "mlcd")
    assert parse(_reader({AUTO: auto}), "t.whl", "9.9") is None   # the sibling not there: not known


@pytest.mark.parametrize("change", ['CONFIG_MAPPING_NAMES.pop("llama")\n', "del CONFIG_MAPPING_NAMES['llama']\n",
                                    "CONFIG_MAPPING_NAMES.update(EXTRA)\n", "CONFIG_MAPPING_NAMES = build()\n"])
def test_a_change_of_the_table_not_read_leaves_it_unknown(change: str) -> None:
    assert parse(_reader({AUTO: CONFIGURATION_AUTO + change}), "t.whl", "9.9") is None


def test_a_wheel_is_read(tmp_path: Path) -> None:
    wheel = tmp_path / "transformers-9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(AUTO, CONFIGURATION_AUTO)
    types = read_wheel(wheel, "9.9")
    assert types is not None and types.knows("llama") and not types.knows("qwen3_5_moe")
    assert ConfigTypes.from_json(json.loads(json.dumps(types.to_json()))) == types


def test_offline_without_the_cache_is_not_known(tmp_path: Path) -> None:
    types, why = config_types("4.57.1", tmp_path, offline=True)
    assert types is None and why


# get_config's body as the IR lowers it: the loader call inside a try whose handler takes ValueError.
def _call(line: int) -> list:
    return ["call", ["a", ["n", "AutoConfig"], "from_pretrained", line], [["n", "model"]], [], line]


HANDLED = [["try", 10, [["assign", 11, [["n", "config"]], _call(11)]],
            [[["n", "ValueError"], "e", [["raise", 16, ["n", "e"]]]]], [], []],
           ["ret", 20, ["n", "config"]]]
UNHANDLED = [["assign", 11, [["n", "config"]], _call(11)], ["ret", 20, ["n", "config"]]]
OTHER_HANDLER = [["try", 10, [["assign", 11, [["n", "config"]], _call(11)]],
                  [[["n", "KeyError"], "e", [["pass", 14]]]], [], []]]


@pytest.fixture(scope="module")
def types() -> ConfigTypes:
    found = parse(_reader({AUTO: CONFIGURATION_AUTO}), "t.whl", "9.9")
    assert found is not None
    return found


def test_an_unregistered_model_type_is_refused_at_the_loader_call(types: ConfigTypes) -> None:
    config = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe"}
    found = refusal(config, types, {}, UNHANDLED)
    assert found is not None and (found.line, found.handler_line, found.model_type) == (11, None, "qwen3_5_moe")
    assert "`qwen3_5_moe`" in found.message
    handled = refusal(config, types, {}, HANDLED)
    assert handled is not None and (handled.line, handled.handler_line) == (11, 10)
    other = refusal(config, types, {}, OTHER_HANDLER)
    assert other is not None and other.handler_line is None   # `except KeyError` does not take a ValueError


@pytest.mark.parametrize(("config", "registry"), [
    ({"model_type": "qwen3"}, {}),                                                     # transformers has it
    ({"model_type": "qwen3_5_moe"}, {"qwen3_5_moe": object()}),                        # SGLang registers it
    ({"model_type": "kimi_k25", "auto_map": {"AutoConfig": "configuration.KimiConfig"}}, {}),   # its own class
    ({"architectures": ["X"]}, {}),                                                    # no model_type
])
def test_an_accepted_or_undecided_config_is_not_refused(types: ConfigTypes, config: dict, registry: dict) -> None:
    assert refusal(config, types, registry, UNHANDLED) is None


def test_nothing_is_said_without_the_registries(types: ConfigTypes) -> None:
    config = {"model_type": "qwen3_5_moe"}
    assert refusal(config, None, {}, UNHANDLED) is None        # the pinned transformers not read
    assert refusal(config, types, None, UNHANDLED) is None     # SGLang's own registry not followed
    assert refusal(config, types, {}, [["ret", 20, ["n", "config"]]]) is None   # no loader call found


def _resolve(cache: Path, release: str, *extra: str) -> dict:
    cmd = [sys.executable, "-m", "flagscan", "--sglang", release, "--cache-dir", str(cache), "-q", "resolve",
           "--format", "json", "--gpu", "rtx-pro-6000-server", "--gpu-count", "4", "--no-startup",
           "--model-config", str(ROOT / "tests" / "data" / "groundtruth" / "models" / "qwen3.5-122b-a10b"), *extra,
           "--", "--model-path", "Qwen/Qwen3.5-122B-A10B", "--tp-size", "4"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-500:]
    return json.loads(proc.stdout)


def _refusals(doc: dict) -> list[dict]:
    return [r for r in doc["rejections"] if r["location"].startswith("sglang/srt/utils/hf_transformers_utils.py:")
            and "model type `qwen3_5_moe`" in r["message"]]


@pytest.mark.real
def test_release_0_5_5_refuses_qwen3_5_moe_through_its_pinned_transformers(real_cache_dir: Path) -> None:
    """0.5.5 pins transformers 4.57.1, which has no qwen3_5_moe: SGLang's get_config raises while
    resolving (as SGLang itself did for every recorded Qwen3.5 configuration of that release)."""
    found = _refusals(_resolve(real_cache_dir, "0.5.5"))
    assert found and all(r["phase"] == "resolution" for r in found)
    # the same release with a transformers that registers the type accepts it
    assert not _refusals(_resolve(real_cache_dir, "0.5.5", "--package", "transformers=5.3.0"))


@pytest.mark.real
def test_release_0_5_10_accepts_qwen3_5_moe(real_cache_dir: Path) -> None:
    assert not _refusals(_resolve(real_cache_dir, "0.5.10"))


@pytest.mark.real
def test_a_config_the_handler_loads_itself_is_not_config_json(real_cache_dir: Path) -> None:
    """0.5.6's get_config takes transformers' refusal of `deepseek_v32` and loads a copy of
    config.json with the architecture rewritten to DeepseekV3ForCausalLM (the resolution then
    sets page_size 64 for DeepSeek-V3.2's sparse attention). Answering that path with
    config.json as given kept DeepseekV32ForCausalLM and page_size 1, and predicted a certain
    startup crash (memory_pool.py's `assert self.page_size == 64`) for a server that starts."""
    cmd = [sys.executable, "-m", "flagscan", "--sglang", "0.5.6", "--cache-dir", str(real_cache_dir), "-q",
           "resolve", "--format", "json", "--gpu", "h200", "--gpu-count", "8",
           "--model-config", str(ROOT / "tests" / "data" / "startup" / "models" / "deepseek-v3.2"),
           "--", "--model-path", "deepseek-ai/DeepSeek-V3.2", "--tp", "8", "--trust-remote-code"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-500:]
    doc = json.loads(proc.stdout)
    assert [r for r in doc["rejections"] if r["certain"]] == []
    # the refusal itself is still said (possible: the handler's test of str(e) is not decided)
    assert any("model type `deepseek_v32`" in r["message"] for r in doc["rejections"])
    assert not (doc["settings"]["page_size"]["certain"] and doc["settings"]["page_size"]["value"] == 1)
