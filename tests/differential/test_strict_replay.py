"""Every recorded release's replay runs under FLAGSCAN_STRICT=1: the interpreter follows all of
SGLang's code the sampled configurations reach (a give-up raises flagscan.strict.GaveUp), and
what it is certain of is what SGLang resolved.

The sample is every SAMPLE_EVERY-th recorded configuration from SAMPLE_OFFSET (not those
test_agreement.py replays for the sampled releases, so that together they cover more).
Predictions are computed afresh: a resolution cached by an earlier run would not run the
interpreter at all, so the prediction cache of this test is a directory of its own (the
lowered modules and inventories are shared with the other real tests).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agreement

RELEASES = sorted(p.stem for p in agreement.RECORDINGS.glob("*.json"))
SAMPLE_EVERY = 30
SAMPLE_OFFSET = 15


def sample(cases: list[dict]) -> list[dict]:
    return [c for i, c in enumerate(cases) if i % SAMPLE_EVERY == SAMPLE_OFFSET]


def _fresh_predictions(shared: Path, tmp: Path) -> Path:
    """A cache directory whose facts are the shared ones but with no cached resolution."""
    (tmp / "facts").mkdir(parents=True)
    for kind in ("ir", "inventory", "reads", "reads-index"):
        (shared / "facts" / kind).mkdir(parents=True, exist_ok=True)
        (tmp / "facts" / kind).symlink_to(shared / "facts" / kind)
    return tmp


def test_the_sample_is_deterministic_and_not_empty() -> None:
    for release in RELEASES:
        cases = agreement.load(release)["cases"]
        picked = sample(cases)
        assert picked and picked == sample(cases), release
        assert all(cases.index(c) % SAMPLE_EVERY == SAMPLE_OFFSET for c in picked)


@pytest.mark.real
@pytest.mark.parametrize("release", RELEASES)
def test_replay_under_strict_mode(release: str, real_cache_dir: Path, tmp_path: Path, monkeypatch) -> None:
    from flagscan.extract import load_inventory
    from flagscan.source import get_source
    from flagscan.strict import GaveUp

    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    recording = agreement.load(release)
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    cache = _fresh_predictions(real_cache_dir, tmp_path / "cache")
    gave_up: list[tuple[str, str]] = []
    scores = []
    for case in sample(recording["cases"]):
        try:
            scores.append(agreement.score_case(recording, case, tree.root, inventory, cache))
        except GaveUp as exc:
            gave_up.append((case["id"], str(exc)))
    assert gave_up == []
    total = agreement.summarize(scores)["total"]
    assert total["cases"] == len(scores) > 0
    assert [(s.id, s.wrong[:3]) for s in scores if s.wrong] == []
    assert total["precision"] == 1.0
    assert total["false_certain_rejections"] == 0


def test_the_readme_counts_the_configurations_the_whole_strict_replay_runs() -> None:
    # README: "all 4117 recorded configurations of the ten releases" (strict_replay_all.py)
    assert len(RELEASES) == 10
    assert sum(len(agreement.load(r)["cases"]) for r in RELEASES) == 4117
