"""rules/record.toml: the record stated once, and the names and settings flagscan's logic reads from it."""

from __future__ import annotations

from importlib import resources

import pytest

from flagscan import ruledata
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import RuleDataError, command_width, condition_fields, load, model_path_of

RECORD = load("record")
FILES = sorted(p.name[:-5] for p in resources.files("flagscan.rules").iterdir() if p.name.endswith(".toml"))


def test_record_shape() -> None:
    assert RECORD["record"]["module"].startswith("sglang.") and RECORD["record"]["class"].isidentifier()
    names = RECORD["names"]
    assert names["resolution"] and set(names["resolution"]) <= set(names["conditions"])
    assert all(n.isidentifier() for n in names["conditions"])
    settings = RECORD["settings"]
    assert settings["model"].isidentifier() and settings["width"]


def test_the_record_is_stated_once() -> None:
    """No other file names the record's module and class; the three readers take them from record.toml."""
    module, cls = RECORD["record"]["module"], RECORD["record"]["class"]
    for name in FILES:
        if name == "record":
            continue
        raw = ruledata._parse(name)
        for key, table in raw.items():
            if isinstance(table, dict):
                assert not (table.get("module") == module and table.get("class") == cls), (name, key)
    for name, key in (("cli", "entry"), ("resolution", "entry"), ("effects", "record")):
        assert ruledata._parse(name)[key]["record"] is True
        assert (load(name)[key]["module"], load(name)[key]["class"]) == (module, cls)


def test_a_table_restating_the_record_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ruledata._parse
    monkeypatch.setattr(ruledata, "_parse", lambda n: {"entry": {"record": True, "class": "X"}} if n == "x" else real(n))
    load.cache_clear()
    try:
        with pytest.raises(RuleDataError):
            load("x")
    finally:
        load.cache_clear()


def test_condition_fields_are_the_record_names() -> None:
    pattern = condition_fields()
    for name in RECORD["names"]["conditions"]:
        assert pattern.findall(f"{name}.tp_size > 1") == ["tp_size"], name
    assert pattern.findall("other.tp_size > 1 and myself.x") == []


def test_command_width_and_model_path() -> None:
    first, second = RECORD["settings"]["width"][0], RECORD["settings"]["width"][-1]
    assert command_width({}) == 1
    assert command_width({first: 4, second: 2}) == 8
    assert command_width({first: True, second: 0, "other": 8}) == 1
    key = RECORD["settings"]["model"]
    assert model_path_of({key: "/m"}) == "/m" and model_path_of({key: None}) is None and model_path_of({}) is None


def test_both_commands_count_gpus_alike() -> None:
    """lint and resolve (and verify, through resolve) size the node from one helper (were two differing copies)."""
    from flagscan.commands.resolve_cmd import _count_from_command as resolve_count
    from flagscan.lint.engine import _count_from_command as lint_count

    profile = profile_from_spec("h200")
    first, second = RECORD["settings"]["width"][0], RECORD["settings"]["width"][-1]
    for values in ({first: 4, second: 2}, {first: True}, {first: 16}, {}):
        assert resolve_count(profile, values, None).count == lint_count(profile, values).count
    assert resolve_count(profile, {first: 16}, None).count == 16
    assert resolve_count(profile, {first: 16}, 2) is profile


def test_reads_take_the_record_names_from_rule_data() -> None:
    from flagscan.extract.reads_walk import Idioms

    assert Idioms.from_rules().record_names == frozenset(RECORD["names"]["resolution"])


def test_declaring_functions_are_described_alike() -> None:
    """effects.toml's writers are the declarations and in-place writers of resolution.toml
    (declare_late_resolution was in effects.toml only)."""
    declarations = load("resolution")["declarations"]
    described = {name.rpartition(".")[2] for name in [*declarations["functions"], *declarations["in_place"]]}
    assert set(load("effects")["writers"]) == described
    assert not set(declarations["functions"]) & set(declarations["in_place"])
