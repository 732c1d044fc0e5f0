"""source/extract: packages beside sglang/ (a site-packages served in place) stay outside the tree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from flagscan.cli import main
from flagscan.extract.irstore import ModuleStore
from flagscan.extract.modules import SourceIndex

LINT = Path(__file__).resolve().parents[2] / "fixtures" / "trees" / "lint"
# A torch beside sglang/ whose Python says an sm80 GPU: if flagscan interpreted it, the
# fa3 check of the fixture would reject on an H200, whose capability is rule data.
FAKE_TORCH = {
    "torch/__init__.py": "from torch import cuda\n",
    "torch/cuda.py": "def get_device_capability():\n    return (8, 0)\n\n"
                     "def mem_get_info():\n    return (1, 2)\n",
}


def _site(tmp_path: Path, beside: bool) -> Path:
    site = tmp_path / ("beside" if beside else "alone") / "site-packages"
    shutil.copytree(LINT / "sglang", site / "sglang")
    if beside:
        for rel, text in FAKE_TORCH.items():
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_text(text)
    return site


def _resolve(site: Path, cache: Path) -> dict:
    argv = ["--sglang", str(site), "--cache-dir", str(cache), "resolve", "--gpu", "h200",
            "--format", "json", "--", "--model-path", "m", "--attention-backend", "fa3"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_locators_see_only_the_sglang_package(tmp_path: Path) -> None:
    site = _site(tmp_path, beside=True)
    for locator in (ModuleStore(site), SourceIndex(site)):
        assert locator.module_file("torch") is None and locator.module_file("torch.cuda") is None
        assert locator.module_file("sglang.srt.server_args") == site / "sglang/srt/server_args.py"
    assert not ModuleStore(site).is_package("torch") and ModuleStore(site).is_package("sglang")


def test_resolution_ignores_a_package_beside_sglang(tmp_path: Path) -> None:
    alone = _resolve(_site(tmp_path, beside=False), tmp_path / "c1")
    beside = _resolve(_site(tmp_path, beside=True), tmp_path / "c2")
    assert alone["settings"] and alone["settings"] == beside["settings"]
    assert alone["rejections"] == beside["rejections"]
    # the fixture command is refused nowhere; without a model config the startup phase
    # may only say what the model would decide
    assert not [r for r in alone["rejections"] if r["certain"]]
    assert alone["startup"] == beside["startup"]
