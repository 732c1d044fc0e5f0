"""source: resolve_pin(): config pin, then installed sglang, then the default pin."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import assert_one_line

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
    monkeypatch.setattr(pin, "_rules_file", lambda: (b'[pin]\ndefault_pin = "0.5.30"\n', "rules/sources.toml"))
    assert resolve_pin(tmp_path) == ("0.5.30", "default pin in rules/sources.toml")


def test_default_when_rules_file_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pin, "_rules_file", lambda: (None, "rules/sources.toml"))
    spec, how = resolve_pin(tmp_path)
    assert spec == "0.5.23" and "not found" in how


def test_real_default_pin_is_a_release(tmp_path: Path) -> None:
    spec, how = resolve_pin(tmp_path)
    assert spec[0].isdigit() and "rules/sources.toml" in how


def test_bad_toml_and_bad_pin(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.flagscan\n")
    with pytest.raises(SourceError) as err:
        resolve_pin(tmp_path)
    assert_one_line(err.value)
    (tmp_path / "pyproject.toml").write_text("[tool.flagscan]\nsglang = 5\n")
    with pytest.raises(SourceError) as err:
        resolve_pin(tmp_path)
    assert "must be a non-empty string" in assert_one_line(err.value)
