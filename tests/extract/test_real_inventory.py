"""The flag inventory of real SGLang releases (fetched from PyPI, cached between runs)."""

from __future__ import annotations

import pytest

from flagscan.extract import load_inventory
from flagscan.source import get_source

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def inv_0510(real_cache_dir):
    tree = get_source("0.5.10", cache_dir=real_cache_dir)
    assert tree.version == "0.5.10"
    return load_inventory(tree.root, real_cache_dir)[0]


@pytest.fixture(scope="module")
def inv_newest(real_cache_dir):
    tree = get_source("0.5.23", cache_dir=real_cache_dir)
    return load_inventory(tree.root, real_cache_dir)[0]


def test_0510_motivating_flags(inv_0510) -> None:
    flags = inv_0510.by_option()
    fusion = flags["--enable-flashinfer-allreduce-fusion"]
    assert (fusion.action, fusion.default, fusion.deprecated) == ("store_true", False, False)
    assert fusion.location.path == "sglang/srt/server_args.py"
    assert flags["--tp-size"] is flags["--tensor-parallel-size"]
    # `--tp` is no option of its own: argparse accepts it as the unique abbreviation.
    assert inv_0510.allow_abbrev and [o for o in flags if o.startswith("--tp")] == ["--tp-size"]
    assert flags["--model"] is flags["--model-path"] and flags["--model-path"].required
    assert "triton" in flags["--attention-backend"].choices
    assert flags["--speculative-algorithm"].dest == "speculative_algorithm"
    assert flags["--mamba-scheduler-strategy"].default == "auto"
    assert not inv_0510.notes


def test_newest_release_layout(inv_newest) -> None:
    flags = inv_newest.by_option()
    # Generated from annotated fields in arg_groups/fields/ in this layout.
    assert flags["--tp-size"].location.path.startswith("sglang/srt/arg_groups/fields/")
    assert flags["--tp-size"] is flags["--tensor-parallel-size"]
    old = flags["--enable-flashinfer-allreduce-fusion"]
    assert old.deprecated and old.replacement.startswith("--flashinfer-allreduce-fusion-backend")
    assert flags["--enable-dp-attention"].deprecated
    assert len(inv_newest.flags) > 500
