"""The wheel carries the rule data (flagscan.rules) that every stage reads."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.real
def test_wheel_ships_rule_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob("flagscan-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"flagscan/rules/{p.name}" for pattern in ("*.toml", "*.json") for p in (ROOT / "rules").glob(pattern)}
    assert expected and expected <= names
    assert "flagscan/rules/README.md" in names
