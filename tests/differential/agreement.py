"""Agreement of `flagscan resolve` with SGLang's own resolution, recorded per release.

The recordings under tests/data/groundtruth/resolution/ were written by running each
release's real ServerArgs resolution with simulated hardware (record_resolutions.py).
This module replays every recorded case through flagscan (parsing the same argv
with flagscan's own parser) and scores:

* recall: SGLang's adjusted (setting, value) pairs that flagscan predicts, certain
  and equal;
* precision: flagscan's certain predictions (every setting flagscan is sure of)
  that equal SGLang's resolved value;
* rejections: SGLang's startup rejections that flagscan predicts.

Run as a script to print the table: python -m tests.differential.agreement 0.5.10
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "tests" / "data" / "groundtruth" / "resolution"
MODELS = ROOT / "tests" / "data" / "groundtruth" / "models"


@dataclass
class CaseScore:
    id: str
    gpu: str
    gt_adjusted: int = 0
    predicted: int = 0
    certain: int = 0
    certain_correct: int = 0
    rejected: bool = False
    rejection_predicted: bool = False
    false_rejection: bool = False
    misses: list[tuple[str, Any, Any]] = field(default_factory=list)
    wrong: list[tuple[str, Any, Any]] = field(default_factory=list)


def load(release: str) -> dict[str, Any]:
    return json.loads((RECORDINGS / f"{release}.json").read_text())


def _expand(value: Any, lists: dict[str, Any]) -> Any:
    """Recorded values name long lists by reference ("@L0"), at any depth."""
    if isinstance(value, str) and value in lists:
        return _expand(lists[value], lists)
    if isinstance(value, dict):
        return {k: _expand(v, lists) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, lists) for v in value]
    return value


def _norm(value: Any, models: str) -> Any:
    """Make values comparable: tuples -> lists, the model directory -> <models>."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list):
        return [_norm(v, models) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v, models) for k, v in value.items()}
    if isinstance(value, str) and models in value:
        return value.replace(models, "<models>")
    return value


def _profile(recording: dict[str, Any], case: dict[str, Any]):
    """The GPU as an operator names it: `--gpu KEY --gpu-count N`, KEY being the GPU
    table entry the recording simulated (test_groundtruth_files.py checks that the
    recorded profile is that entry)."""
    from flagscan.hardware import profile_from_spec

    return profile_from_spec(case["gpu"]["key"], count=case["gpu"]["count"])


def predicted(recording, case, root: Path, inventory, cache_dir: Path | None):
    """flagscan's resolution of a recorded case's command, GPU, environment and model."""
    from flagscan.evaluate import Scenario, load_model, predict
    from flagscan.inputs import command_from_argv, parse_command

    argv = [a.replace("<models>", str(MODELS)) for a in case["argv"]]
    parsed = parse_command(command_from_argv(argv), inventory)
    values = {d: v.value for d, v in parsed.values.items()}
    model = load_model(str(MODELS / case["model"]), None, values.get("model_path"))
    scenario = Scenario(_profile(recording, case), dict(case.get("env") or {}), model)
    return predict(root, cache_dir, inventory, values, scenario)


def score_case(recording, case, root: Path, inventory, cache_dir: Path | None) -> CaseScore:
    from flagscan.evaluate.resolution.results import jsonable

    models = str(MODELS)
    resolution = predicted(recording, case, root, inventory, cache_dir)

    lists = recording["lists"]
    volatile = set(recording.get("volatile_fields", []))
    score = CaseScore(case["id"], case["gpu"]["key"])
    score.rejected = case["error"] is not None
    flagged = [r for r in resolution.rejections]
    if score.rejected:
        message = case["error"]["message"]
        score.rejection_predicted = any(r.message[:40] == message[:40] for r in flagged)
        return score
    score.false_rejection = any(r.certain for r in flagged)
    parsed_gt = {**recording["parsed_defaults"], **(case.get("parsed") or {})}
    final_gt = dict(parsed_gt)
    for name, (_before, after, _step) in case["changed"].items():
        final_gt[name] = _expand(after, lists)
    for name, (_before, after, _step) in case["changed"].items():
        if name in volatile:
            continue
        score.gt_adjusted += 1
        # a private field (`_x_explicitly_set`) is the record's bookkeeping: flagscan keeps it
        # apart from the settings (Resolution.private), and predicts it all the same
        mine = resolution.settings.get(name) or resolution.private.get(name)
        want = _norm(_expand(after, lists), models)
        if mine is not None and mine.certain and _norm(jsonable(mine.value), models) == want:
            score.predicted += 1
        else:
            got = _norm(jsonable(mine.value), models) if mine is not None and mine.certain else "unknown"
            score.misses.append((name, want, got))
    for name, setting in resolution.settings.items():
        if not setting.certain or name in volatile or name not in final_gt:
            continue
        score.certain += 1
        want = _norm(_expand(final_gt[name], lists), models)
        got = _norm(jsonable(setting.value), models)
        if got == want:
            score.certain_correct += 1
        else:
            score.wrong.append((name, want, got))
    return score


def run(release: str, root: Path, cache_dir: Path | None, limit: int | None = None) -> list[CaseScore]:
    from flagscan.extract import load_inventory

    recording = load(release)
    inventory, _ = load_inventory(root, cache_dir)
    cases = recording["cases"][:limit] if limit else recording["cases"]
    return [score_case(recording, c, root, inventory, cache_dir) for c in cases]


def summarize(scores: list[CaseScore]) -> dict[str, Any]:
    def agg(items: list[CaseScore]) -> dict[str, Any]:
        adj = sum(s.gt_adjusted for s in items)
        pred = sum(s.predicted for s in items)
        cert = sum(s.certain for s in items)
        ok = sum(s.certain_correct for s in items)
        rej = [s for s in items if s.rejected]
        return {
            "cases": len(items),
            "adjusted_pairs": adj,
            "recall": round(pred / adj, 4) if adj else None,
            "certain_predictions": cert,
            "precision": round(ok / cert, 4) if cert else None,
            "rejections": len(rej),
            "rejections_predicted": sum(s.rejection_predicted for s in rej),
            "false_certain_rejections": sum(s.false_rejection for s in items),
        }
    by_gpu: dict[str, list[CaseScore]] = defaultdict(list)
    for s in scores:
        by_gpu[s.gpu].append(s)
    return {"total": agg(scores), "by_gpu": {g: agg(v) for g, v in sorted(by_gpu.items())}}


def main(argv: list[str]) -> int:
    from flagscan.source import get_source

    release = argv[0]
    limit = int(argv[1]) if len(argv) > 1 else None
    cache = Path(os.environ.get("FLAGSCAN_TEST_CACHE", Path.home() / ".cache" / "flagscan-test"))
    tree = get_source(release, cache_dir=cache)
    t0 = time.time()
    scores = run(release, tree.root, cache, limit)
    summary = summarize(scores)
    print(json.dumps(summary, indent=1))
    print(f"{len(scores)} cases in {time.time() - t0:.1f}s")
    misses: dict[str, int] = defaultdict(int)
    wrong: dict[str, int] = defaultdict(int)
    for s in scores:
        for name, *_ in s.misses:
            misses[name] += 1
        for name, *_ in s.wrong:
            wrong[name] += 1
    print("missed:", sorted(misses.items(), key=lambda kv: -kv[1])[:25])
    print("wrong:", sorted(wrong.items(), key=lambda kv: -kv[1])[:25])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
