"""The record's own serialisation of resolved values is what a setting finally is."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.evaluate.resolution.resolve import resolve
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.facts.flags import Inventory
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

# A deprecated switch that resolution turns off once it has moved its width to
# another field, while the serialised result reports it on whenever that width is
# above one (SGLang 0.5.23 `ServerArgs.resolved_dict` and `enable_dp_attention`).
ARGS = '''
from dataclasses import dataclass


def result(record, name):
    return record.declared.get(name, getattr(record, name))


@dataclass
class Args:
    dp_size: int = 8
    attn_dp_size: int = 1
    legacy_switch: bool = True

    @classmethod
    def from_cli_args(cls, namespace):
        return cls()

    def __post_init__(self):
        self.declared = {}
        if self.legacy_switch:
            self.declared["attn_dp_size"] = self.dp_size
            self.declared["dp_size"] = 1
            self.declared["legacy_switch"] = False

    def resolved_dict(self):
        out = {name: result(self, name) for name in ("dp_size", "attn_dp_size", "legacy_switch")}
        out["legacy_switch"] = result(self, "attn_dp_size") > 1
        return out
'''

RULES = {"entry": {"module": "sglang.srt.args", "class": "Args", "constructor": "from_cli_args",
                   "result_function": "sglang.srt.args.result", "result_method": "resolved_dict"}}


def test_a_field_the_serialisation_restates_takes_its_value(tmp_path):
    root = write_tree(tmp_path / "tree", {"sglang/srt/args.py": ARGS})
    world = World(profile_from_spec("h200"))
    resolution = resolve(ModuleStore(root, tmp_path / "cache"), Inventory(()), {}, world, RULES)
    got = {k: (s.value, s.certain) for k, s in resolution.settings.items()}
    # result() alone says False; the serialisation says True: True, certain (was False, certain)
    assert got == {"dp_size": (1, True), "attn_dp_size": (8, True), "legacy_switch": (True, True)}


@pytest.mark.real
def test_deprecated_dp_attention_on_0_5_23_is_reported_on(real_cache_dir):
    from tests.differential.agreement import MODELS

    result = CliRunner().invoke(main_cli(), [
        "-q", "--sglang", "0.5.23", "--cache-dir", str(real_cache_dir), "resolve", "--gpu", "h200",
        "--format", "json", "--model-config", str(MODELS / "llama-3-8b"), "--",
        "--model-path", "meta-llama/Meta-Llama-3-8B", "--tp", "8", "--dp", "8", "--enable-dp-attention"])
    assert result.exit_code in (0, 1), result.output
    settings = json.loads(result.stdout)["settings"]
    # parallel_hook.py declares enable_dp_attention=False after moving dp_size to
    # attn_dp_size; resolved_dict reports attn_dp_size > 1 (and SGLang logs
    # "DP attention is enabled"): true, not false-certain
    assert (settings["enable_dp_attention"]["value"], settings["enable_dp_attention"]["certain"]) == (True, True)
    assert (settings["attn_dp_size"]["value"], settings["dp_size"]["value"]) == (8, 1)


def main_cli():
    from flagscan.cli import main

    return main
