"""evaluate: the model's tokenizer (rules/world.toml [sglang] "model.tokenizer"): what the files
beside config.json say of it. An added token encodes to its one id (transformers never splits an
added token); any other text, and anything else about the tokenizer, is a fact of the model
("model:tokenizer"), so a startup check it decides is possible, not certain, and names it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.world import TokenizerView, World, load_model
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.conftest import ROOT
from tests.evaluate.helpers import resolve_json

DSV3 = ROOT / "tests" / "data" / "groundtruth" / "models" / "deepseek-v3"
ARGV = ("--gpu", "h200", "--gpu-count", "8", "--", "--model-path", "deepseek-ai/DeepSeek-V3-0324",
        "--trust-remote-code", "--tp-size", "8", "--reasoning-parser", "deepseek-v3")
REASONER = "sglang/srt/constrained/reasoner_grammar_backend.py:237"


def _model(tmp_path: Path, files: dict[str, object]) -> Path:
    (tmp_path / "config.json").write_text((DSV3 / "config.json").read_text())
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data))
    return tmp_path


def _encode(world: World, text: str, **kwargs: object) -> object:
    tokenizer = world.tokenizer()
    assert isinstance(tokenizer, TokenizerView)
    return world.config_attr(tokenizer, "encode").fn(None, None, [text], kwargs, None, 0)


def test_the_loaders_of_each_era_are_the_model_s_tokenizer() -> None:
    sglang = load("world")["sglang"]
    assert sglang["sglang.srt.utils.hf_transformers_utils.get_tokenizer"] == "model.tokenizer"
    assert sglang["sglang.srt.utils.hf_transformers.tokenizer.get_tokenizer"] == "model.tokenizer"


def test_without_tokenizer_files_the_tokenizer_is_a_fact_of_the_model() -> None:
    world = World(profile_from_spec("h200"), {}, load_model(str(DSV3), None, None))
    tokenizer = world.tokenizer()
    assert isinstance(tokenizer, Unknown) and tokenizer.needs == {"model:tokenizer"}


@pytest.mark.parametrize("files", [
    {"tokenizer_config.json": {"added_tokens_decoder": {"128798": {"content": "</think>", "special": False}}}},
    {"tokenizer.json": {"added_tokens": [{"id": 128798, "content": "</think>", "special": False}]}},
])
def test_an_added_token_encodes_to_its_one_id(tmp_path, files) -> None:
    world = World(profile_from_spec("h200"), {}, load_model(str(_model(tmp_path, files)), None, None))
    assert _encode(world, "</think>", add_special_tokens=False) == [128798]
    other = _encode(world, "<think>", add_special_tokens=False)
    assert isinstance(other, Unknown) and other.needs == {"model:tokenizer"}
    # with special tokens added (the default), a BOS may come first: not known
    assert isinstance(_encode(world, "</think>"), Unknown)


@pytest.mark.real
def test_a_reasoning_parser_s_think_end_token_is_checked_against_the_tokenizer(real_cache_dir, tmp_path) -> None:
    # 0.5.12: Scheduler.init_tokenizer, then GrammarManager -> ReasonerGrammarBackend, which refuses a
    # think-end token the tokenizer splits (DeepSeek-V3-0324's does: issue 24843)
    _code, doc = resolve_json(real_cache_dir, "0.5.12", "--model-config", str(DSV3), *ARGV)
    (found,) = [r for r in doc["rejections"] if r["location"] == REASONER]
    assert found["phase"] == "startup" and not found["certain"] and found["needs"] == ["model:tokenizer"]
    # a tokenizer that keeps `</think>` as one added token passes the check
    added = {"tokenizer_config.json": {"added_tokens_decoder": {"128798": {"content": "</think>"}}}}
    _code, doc = resolve_json(real_cache_dir, "0.5.12", "--model-config", str(_model(tmp_path, added)), *ARGV)
    assert not [r for r in doc["rejections"] if r["location"].startswith("sglang/srt/constrained/reasoner_grammar")]
