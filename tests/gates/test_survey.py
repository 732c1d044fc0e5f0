"""Agreement of flagscan's verdicts with the hand survey (tests/data/survey/) on real releases."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from flagscan.evaluate.gates_run import evaluate_gpu
from flagscan.extract import load_inventory
from flagscan.extract.reads import load_reads
from flagscan.hardware import profile_from_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SURVEY = Path(__file__).resolve().parents[1] / "data" / "survey"
GPUS = {"sm80": "a100-80gb", "sm90": "h100", "sm100": "b200", "sm120": "rtx-pro-6000"}


def agreement(version: str, cache: Path) -> tuple[int, int, list[str], list[str]]:
    from flagscan.source import get_source

    survey = tomllib.loads((SURVEY / f"{version}.toml").read_text())["flags"]
    tree = get_source(version, cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    reads = load_reads(tree.root, cache)
    agree, total, wrong, wrong_no_op = 0, 0, [], []
    for sm, gpu in GPUS.items():
        gg = evaluate_gpu(tree.root, cache, inventory, reads, profile_from_spec(gpu, count=4), flags=sorted(survey))
        for dest, expected in survey.items():
            got = gg.verdicts[dest].status.value
            total += 1
            if got == expected[sm]:
                agree += 1
            else:
                wrong.append(f"{dest}@{sm}: expected {expected[sm]}, got {got}")
                if got == "NO_OP":
                    wrong_no_op.append(wrong[-1])
    return agree, total, wrong, wrong_no_op


@pytest.mark.real
@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_survey_agreement(version, real_cache_dir):
    agree, total, wrong, wrong_no_op = agreement(version, real_cache_dir)
    print(f"{version}: {agree}/{total} agree", *wrong, sep="\n  ")
    assert not wrong_no_op
    assert agree / total >= 0.9, wrong


def test_survey_schema():
    for path in SURVEY.glob("*.toml"):
        for dest, entry in tomllib.loads(path.read_text())["flags"].items():
            assert set(entry) == {"sm80", "sm90", "sm100", "sm120", "why"}, (path.name, dest)
            assert all(entry[k] in ("EFFECTIVE", "NO_OP", "CONDITIONAL", "UNREAD", "REJECTED") for k in GPUS)
            assert entry["why"].strip()
