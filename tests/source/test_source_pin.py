"""source: resolve_pin(): config pin, then installed sglang, then the default pin."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import assert_one_line

from flagscan.ruledata import RuleDataError, load
from flagscan.source import SourceError, pin, resolve_pin


@pytest.fixture(autouse=True)
def _no_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pin, "installed_version", lambda: None)


def test_pyproject_pin_found_walking_up(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.flagscan]\nsglang = "0.5.10"\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert resolve_pin(deep) == ("0.5.10", f"pyproject.toml at {tmp_path / 'pyproject.toml'}")


def test_flagscan_toml_top_level_and_table(tmp_path: Path) -> None:
    (tmp_path / "flagscan.toml").write_text('sglang = "v0.5.14"\n')
    assert resolve_pin(tmp_path)[0] == "v0.5.14"
    (tmp_path / "flagscan.toml").write_text('[tool.flagscan]\nsglang = "0.5.15"\n')
    assert resolve_pin(tmp_path)[0] == "0.5.15"


def test_nearest_file_with_a_pin_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.flagscan]\nsglang = "0.5.10"\n')
    sub = tmp_path / "svc"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "svc"\n')   # no pin: keep walking
    assert resolve_pin(sub)[0] == "0.5.10"
    (sub / "flagscan.toml").write_text('sglang = "0.5.12"\n')
    (sub / "pyproject.toml").write_text('[tool.flagscan]\nsglang = "0.5.11"\n')
    assert resolve_pin(sub) == ("0.5.12", f"flagscan.toml at {sub / 'flagscan.toml'}")


def test_path_pin_is_relative_to_its_file(tmp_path: Path) -> None:
    (tmp_path / "flagscan.toml").write_text('sglang = "../checkout"\n')
    assert resolve_pin(tmp_path)[0] == str((tmp_path.parent / "checkout").resolve())


def test_installed_then_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pin, "installed_version", lambda: "0.5.10")
    assert resolve_pin(tmp_path) == ("0.5.10", "installed sglang 0.5.10")
    monkeypatch.setattr(pin, "installed_version", lambda: None)
    monkeypatch.setattr(pin, "load", lambda name: {"pin": {"default_pin": "0.5.30"}})
    assert resolve_pin(tmp_path) == ("0.5.30", "default pin in rules/sources.toml")


def test_rules_file_missing_is_one_line_not_a_second_pin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default pin is stated once, in rules/sources.toml (there was a second copy in
    pin.py that served when the file was missing)."""
    def missing(name: str) -> dict:
        raise RuleDataError(f"rule data rules/{name}.toml is missing")

    monkeypatch.setattr(pin, "load", missing)
    with pytest.raises(SourceError) as err:
        resolve_pin(tmp_path)
    assert "sources.toml" in assert_one_line(err.value)
    monkeypatch.setattr(pin, "load", lambda name: {"pin": {}})
    with pytest.raises(SourceError):
        resolve_pin(tmp_path)


def test_real_default_pin_is_the_rule_data(tmp_path: Path) -> None:
    spec, how = resolve_pin(tmp_path)
    assert spec == load("sources")["pin"]["default_pin"] and spec[0].isdigit() and "rules/sources.toml" in how


def test_config_and_pin_walk_the_same_files(tmp_path: Path) -> None:
    """flagscan.config and the pin look up one walk (config_files): nearest directory first,
    flagscan.toml before pyproject.toml; the config wants a flagscan table, the pin a pin."""
    from flagscan.config import find_config

    (tmp_path / "pyproject.toml").write_text('[tool.flagscan]\nsglang = "0.5.10"\n')
    sub = tmp_path / "svc"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "svc"\n')
    (sub / "flagscan.toml").write_text('gpu = "h200"\n')
    assert list(pin.config_files(sub))[:3] == [sub / "flagscan.toml", sub / "pyproject.toml", tmp_path / "pyproject.toml"]
    assert find_config(sub) == sub / "flagscan.toml"
    assert pin.config_pin(sub) == ("0.5.10", tmp_path / "pyproject.toml")


def test_bad_toml_and_bad_pin(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.flagscan\n")
    with pytest.raises(SourceError) as err:
        resolve_pin(tmp_path)
    assert_one_line(err.value)
    (tmp_path / "pyproject.toml").write_text("[tool.flagscan]\nsglang = 5\n")
    with pytest.raises(SourceError) as err:
        resolve_pin(tmp_path)
    assert "must be a non-empty string" in assert_one_line(err.value)
