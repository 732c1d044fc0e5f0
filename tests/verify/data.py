"""The generated verify data (tests/data/verify, see make_data.py): cases and their files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "verify"
GPU_KEYS = {"NVIDIA H200": "h200", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "rtx-pro-6000"}


@dataclass(frozen=True, slots=True)
class Case:
    release: str
    name: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.release}/{self.name}"

    def json(self, name: str) -> Any:
        return json.loads((self.path / name).read_text())

    def text(self, name: str) -> str:
        return (self.path / name).read_text()

    @property
    def meta(self) -> dict[str, Any]:
        return self.json("case.json")

    def gpu_args(self) -> list[str]:
        gpu = self.meta["gpu"]
        return ["--gpu", GPU_KEYS[gpu["name"]], "--gpu-count", str(gpu["count"])]


def cases() -> list[Case]:
    return [Case(d.parent.name, d.name, d) for d in sorted(DATA.glob("*/*")) if (d / "case.json").is_file()]
