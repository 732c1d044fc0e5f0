"""Every recorded configuration of the releases named, replayed under FLAGSCAN_STRICT=1
(test_strict_replay.py runs a sample of them in CI; this is the whole set, about an hour on
two cores for the ten releases recorded, so it is run by hand):

    python -m tests.differential.strict_replay_all [RELEASE ...]     (default: every recorded one)

Per release: the configurations replayed, those where the interpreter gave up (GaveUp), those
where a certain value differs from SGLang's or a certain rejection SGLang does not make, and
those where flagscan itself failed. Exit 1 if any of the three is not empty."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.differential import agreement
from tests.differential.test_strict_replay import RELEASES, _fresh_predictions


def replay(release: str, shared: Path) -> dict[str, Any]:
    from flagscan.extract import load_inventory
    from flagscan.source import get_source
    from flagscan.strict import GaveUp

    recording = agreement.load(release)
    tree = get_source(release, cache_dir=shared)
    inventory, _ = load_inventory(tree.root, shared)
    cache = _fresh_predictions(shared, Path(tempfile.mkdtemp(prefix="flagscan-strict-")) / "cache")
    gave_up: list[tuple[str, str]] = []
    wrong: list[tuple[str, str]] = []
    failed: list[tuple[str, str]] = []
    for case in recording["cases"]:
        try:
            score = agreement.score_case(recording, case, tree.root, inventory, cache)
        except GaveUp as exc:
            gave_up.append((case["id"], str(exc)))
            continue
        except Exception as exc:  # flagscan's own failure on this configuration: listed, not hidden
            failed.append((case["id"], f"{type(exc).__name__}: {exc}"))
            continue
        if score.wrong or score.false_rejection:
            wrong.append((case["id"], repr(score.wrong[:3]) + (" (a certain rejection)" if score.false_rejection else "")))
    return {"cases": len(recording["cases"]), "gave_up": gave_up, "wrong": wrong, "failed": failed}


def main(argv: list[str]) -> int:
    import os

    os.environ["FLAGSCAN_STRICT"] = "1"
    # where the `real` tests keep the releases (tests/conftest.py real_cache_dir)
    shared = Path(os.environ.get("FLAGSCAN_TEST_CACHE", Path.home() / ".cache" / "flagscan-test"))
    bad = 0
    for release in argv or RELEASES:
        start = time.perf_counter()
        out = replay(release, shared)
        lists = [out["gave_up"], out["wrong"], out["failed"]]
        print(f"{release}: {out['cases']} configurations, {len(out['gave_up'])} gave up, {len(out['wrong'])} wrong, "
              f"{len(out['failed'])} failed ({time.perf_counter() - start:.0f} s)", flush=True)
        for items in lists:
            for case_id, why in items[:10]:
                print(f"  {case_id}: {why[:300]}")
        bad += sum(len(x) for x in lists)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
