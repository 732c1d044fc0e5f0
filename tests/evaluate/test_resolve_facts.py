"""resolve: the facts each setting carries (cause, default, origin, condition, message) are SGLang's."""

from __future__ import annotations

import ast
import re

import pytest

from tests.evaluate.tree import resolve_json, write_tree

TEMPLATE = re.compile(r"\{[^{}]*[A-Za-z_][^{}]*\}")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("resolve-tree"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("resolve-cache")


def test_a_write_through_the_records_own_setattr_names_the_handler(tree, cache) -> None:
    out = resolve_json(tree, cache, ["--model-path", "m", "--speculative-algorithm", "EAGLE"])
    cause = out["settings"]["cuda_graph_max_bs"]["because"]
    assert [c["handler"] for c in cause] == ["_handle_speculative"]
    assert cause[0]["location"] == "sglang/srt/server_args.py:64"
    handlers = {c["handler"] for s in out["settings"].values() for c in s["because"]}
    assert "__setattr__" not in handlers


def test_a_suppressed_alias_default_is_the_field_default(tree, cache) -> None:
    out = resolve_json(tree, cache, ["--model-path", "m"])
    assert out["settings"]["prefill_backend"]["default"] is None
    assert all(s["default"] != "==SUPPRESS==" for s in out["settings"].values())


def test_a_translated_deprecated_flag_makes_its_replacement_the_users(tree, cache) -> None:
    kept = resolve_json(tree, cache, ["--model-path", "m", "--enable-fusion"], gpu="h200")["settings"]["fusion_backend"]
    assert kept["origin"] == "user" and kept["user_value"] == "auto"
    assert [c["handler"] for c in kept["because"]] == ["_handle_deprecated_args"]
    # on sm120 a later step turns it back off: overridden, with both steps named
    later = resolve_json(tree, cache, ["--model-path", "m", "--enable-fusion"], gpu="rtx-pro-6000")
    changed = later["settings"]["fusion_backend"]
    assert changed["origin"] == "adjusted" and changed["value"] is None
    assert [c["handler"] for c in changed["because"]] == ["_handle_deprecated_args", "_handle_fusion"]
    assert "FS102" in {d["code"] for d in later["diagnostics"] if d["flag"] == "fusion_backend"}


def test_private_fields_are_not_settings(tree, cache) -> None:
    out = resolve_json(tree, cache, ["--model-path", "m"])
    assert not [k for k in out["settings"] if k.startswith("_")]
    assert not [d for d in out["diagnostics"] if (d["flag"] or "").startswith("_")]


def test_nested_conditions_keep_their_parentheses(tree, cache) -> None:
    out = resolve_json(tree, cache, ["--model-path", "m", "--speculative-algorithm", "EAGLE"])
    condition = out["settings"]["cuda_graph_max_bs"]["because"][0]["condition"]
    tree_ = ast.parse(condition, mode="eval").body
    assert isinstance(tree_, ast.BoolOp) and isinstance(tree_.op, ast.And)
    assert isinstance(tree_.values[0], ast.BoolOp) and isinstance(tree_.values[0].op, ast.Or)


def test_messages_have_no_raw_template_and_bare_asserts_say_so(tree, cache) -> None:
    out = resolve_json(tree, cache, ["--model-path", "m", "--speculative-algorithm", "EAGLE",
                                     "--strategy", "extra_buffer"])
    messages = [r["message"] for r in out["rejections"]]
    assert messages and not [m for m in messages if TEMPLATE.search(m)]
    assert any("extra_buffer" in m and "<" in m for m in messages)  # known part filled, unknown part named
    asserted = resolve_json(tree, cache, ["--model-path", "m", "--tp-size", "3"])["rejections"]
    assert [r["exception"] for r in asserted] == ["AssertionError"]
    assert asserted[0]["message"] != "self.tp_size % 2 == 0"


# -- the releases where these were seen ---------------------------------------------------------

def _real(version: str, cache, argv: list[str], gpu: str = "h200") -> dict:
    return resolve_json(version, cache, argv, gpu=gpu)


@pytest.mark.real
def test_0_5_18_causes_are_the_handlers_not_setattr(real_cache_dir) -> None:
    out = _real("0.5.18", real_cache_dir, ["--model-path", "m"])
    handlers = {c["handler"] for s in out["settings"].values() for c in s["because"]}
    assert handlers and "__setattr__" not in handlers
    assert out["settings"]["tokenizer_path"]["because"][0]["handler"] == "_handle_missing_default_values"
    assert "self.tokenizer_path is None" in out["settings"]["tokenizer_path"]["because"][0]["condition"]


@pytest.mark.real
def test_0_5_18_messages_have_no_raw_template(real_cache_dir) -> None:
    out = _real("0.5.18", real_cache_dir, ["--model-path", "m"])
    messages = [r["message"] for r in out["rejections"]]
    assert messages and not [m for m in messages if TEMPLATE.search(m)]
    assert "value == str(None)" not in messages


@pytest.mark.real
def test_0_5_14_suppressed_alias_and_private_fields(real_cache_dir) -> None:
    out = _real("0.5.14", real_cache_dir, ["--model-path", "m"])
    assert out["settings"]["dsa_prefill_backend"]["default"] is None
    assert all(s["default"] != "==SUPPRESS==" for s in out["settings"].values())
    assert not [k for k in out["settings"] if k.startswith("_")]


def test_an_override_of_a_translated_flag_points_at_the_deprecated_flag(tree, cache, tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from flagscan.cli import main

    unit = tmp_path / "launch.cmd"
    unit.write_text("--model-path m --enable-fusion\n")
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(cache), "-q", "lint",
                                       "--gpu", "rtx-pro-6000", "--format", "json", str(unit)])
    over = [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "FS102"]
    assert [d["flag"] for d in over] == ["fusion_backend"]
    assert over[0]["location"]["column"] == len("--model-path m ") + 1
