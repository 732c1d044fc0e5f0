"""Agreement of flagscan's verdicts with the hand survey (tests/data/survey/) on real releases."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from flagscan.evaluate.gates.run import evaluate_gpu
from flagscan.extract import load_inventory
from flagscan.extract.reads import load_reads
from flagscan.hardware import profile_from_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SURVEY = Path(__file__).resolve().parents[1] / "data" / "survey"
GPUS = {"sm80": "a100-80gb", "sm90": "h100", "sm100": "b200", "sm120": "rtx-pro-6000"}
STATUSES = ("EFFECTIVE", "NO_OP", "CONDITIONAL", "UNREAD", "REJECTED")
REACH = {True: "live", False: "dead", None: "unknown"}


def load_survey(version: str) -> dict[str, dict]:
    return tomllib.loads((SURVEY / f"{version}.toml").read_text())["flags"]


def read_reach(verdict, location: str) -> str | None:
    """The reach flagscan gives the read of this flag at `location` (path:line), None if it has no such read."""
    path, _, line = location.rpartition(":")
    found = [REACH[r.live] for r in verdict.reads if r.read.path == path and r.read.line == int(line)]
    if not found:
        return None
    # several reads on one line (a.x and b.x): the line is reached as soon as one of them is
    return "live" if "live" in found else "unknown" if "unknown" in found else "dead"


def agreement(version: str, cache: Path) -> tuple[int, int, list[str], list[str]]:
    from flagscan.source import get_source

    survey = load_survey(version)
    tree = get_source(version, cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    reads = load_reads(tree.root, cache)
    agree, total, wrong, wrong_dead = 0, 0, [], []
    for sm, gpu in GPUS.items():
        gg = evaluate_gpu(tree.root, cache, inventory, reads, profile_from_spec(gpu, count=4), flags=sorted(survey))
        for dest, expected in sorted(survey.items()):
            verdict = gg.verdicts[dest]
            scored = [(dest, expected[sm], verdict.status.value, "NO_OP")]
            for location, reach in sorted(expected.get("reads", {}).items()):
                scored.append((f"{dest} read {location}", reach[sm], read_reach(verdict, location), "dead"))
            for what, want, got, dead in scored:
                total += 1
                if got == want:
                    agree += 1
                    continue
                wrong.append(f"{what}@{sm}: expected {want}, got {got}")
                if got == dead:
                    wrong_dead.append(wrong[-1])
    return agree, total, wrong, wrong_dead


@pytest.mark.real
@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_survey_agreement(version, real_cache_dir, monkeypatch):
    # under FLAGSCAN_STRICT=1: the gates of every surveyed flag are followed without giving up
    # anywhere (a give-up raises GaveUp), so the verdicts scored are the interpreter's own
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    agree, total, wrong, wrong_dead = agreement(version, real_cache_dir)
    print(f"{version}: {agree}/{total} agree", *wrong, sep="\n  ")
    assert not wrong_dead   # a wrong NO_OP, or a read called dead that SGLang can reach
    assert agree == total, wrong


def test_survey_schema():
    paths = sorted(SURVEY.glob("*.toml"))
    assert {p.stem for p in paths} >= {"0.5.10", "0.5.23"}
    for path in paths:
        for dest, entry in load_survey(path.stem).items():
            assert set(entry) - {"reads"} == {*GPUS, "why"}, (path.name, dest)
            assert all(entry[k] in STATUSES for k in GPUS), (path.name, dest)
            assert entry["why"].strip()
            for location, reach in entry.get("reads", {}).items():
                file, _, line = location.rpartition(":")
                assert file.startswith("sglang/") and file.endswith(".py") and line.isdigit(), (path.name, location)
                assert set(reach) == {*GPUS, "why"}, (path.name, dest, location)
                assert all(reach[k] in REACH.values() for k in GPUS), (path.name, dest, location)
                assert reach["why"].strip()


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_survey_scores_hardware(version):
    """Each release's survey holds reads whose reach differs between the four GPUs, so a
    hardware predicate evaluated wrongly shows up as a disagreement."""
    varying = [
        (dest, location)
        for dest, entry in load_survey(version).items()
        for location, reach in entry.get("reads", {}).items()
        if len({reach[k] for k in GPUS}) > 1
    ]
    assert len(varying) >= {"0.5.10": 3, "0.5.23": 12}[version], varying


# README's accuracy section quotes these: flags surveyed and verdicts scored (flags and
# per-read entries, each on four GPUs); the real test requires every one of them to agree.
README_FIGURES = {"0.5.10": (48, 204), "0.5.23": (51, 252)}


@pytest.mark.parametrize("version", sorted(README_FIGURES))
def test_survey_size_is_the_readme_figure(version):
    survey = load_survey(version)
    scored = sum(len(GPUS) * (1 + len(entry.get("reads", {}))) for entry in survey.values())
    assert (len(survey), scored) == README_FIGURES[version]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    _flags, total = README_FIGURES[version]
    assert f"{total}/{total}" in readme
