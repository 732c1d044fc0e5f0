"""The one stub list (rules/stubs.json) that the local probe and the ground-truth scripts both read."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "rules" / "stubs.json").read_text(encoding="utf-8"))


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shape() -> None:
    lists = [DATA["packages"], DATA["probe"]["also"], DATA["ground_truth"]["also"], DATA["ground_truth"]["soft"]]
    flat = [name for names in lists for name in names]
    assert DATA["packages"] and all(isinstance(n, str) and n.isidentifier() for n in flat)
    assert len(flat) == len(set(flat)), "a package is listed twice"
    assert "`stubs.json`" in (ROOT / "rules" / "README.md").read_text(encoding="utf-8")


def test_probe_reads_the_list_in_a_checkout_and_in_a_wheel(tmp_path: Path) -> None:
    probe = _module(ROOT / "flagscan" / "verify" / "probe.py", "probe_checkout")
    assert probe.kernel_packages() == tuple(DATA["packages"]) + tuple(DATA["probe"]["also"])
    # the wheel's layout: flagscan/verify/probe.py beside flagscan/rules/stubs.json
    (tmp_path / "flagscan" / "verify").mkdir(parents=True)
    (tmp_path / "flagscan" / "rules").mkdir()
    shutil.copy(ROOT / "flagscan" / "verify" / "probe.py", tmp_path / "flagscan" / "verify" / "probe.py")
    shutil.copy(ROOT / "rules" / "stubs.json", tmp_path / "flagscan" / "rules" / "stubs.json")
    wheel = _module(tmp_path / "flagscan" / "verify" / "probe.py", "probe_wheel")
    assert wheel.kernel_packages() == probe.kernel_packages()
    (tmp_path / "flagscan" / "rules" / "stubs.json").unlink()
    with pytest.raises(SystemExit):
        wheel.kernel_packages()


def test_ground_truth_reads_the_same_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "differential"))
    gt_env = _module(ROOT / "tests" / "differential" / "gt_env.py", "gt_env_stub_list")
    assert gt_env.STUB_PACKAGES == tuple(DATA["packages"]) + tuple(DATA["ground_truth"]["also"])
    assert gt_env.SOFT_STUB_PACKAGES == tuple(DATA["ground_truth"]["soft"])
