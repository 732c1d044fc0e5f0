"""report (real releases): every NO_OP of the four-GPU report, per GPU, against a reviewed golden file.

tests/data/gates-golden/<release>.json holds, per GPU, the sorted NO_OP dests and the count of
each status, plus a "reviewed" map {dest: why it is dead, citing SGLang file:line}. A new NO_OP
anywhere, or a status count that moves, is a visible diff. Regenerate with
`FLAGSCAN_UPDATE_GOLDEN=1 pytest -m real tests/gates/test_noop_golden.py` or
`python -m tests.gates.test_noop_golden --write [RELEASE...]`; reviews already written are kept,
and a NO_OP without one fails until it is reviewed against the source.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from flagscan.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "gates-golden"
RELEASES = ("0.5.10", "0.5.23")
GPUS = ("a100-80gb", "h100", "b200", "rtx-pro-6000")
STATUSES = ("CONDITIONAL", "EFFECTIVE", "NO_OP", "REJECTED", "UNREAD")
UPDATE = os.environ.get("FLAGSCAN_UPDATE_GOLDEN") == "1"
CITATION = re.compile(r"sglang/[\w/.]+\.py:\d+")


def report_payload(release: str, cache: Path) -> dict[str, Any]:
    """`flagscan report --gpu <four GPUs> --format json` for a release, as the CLI gives it."""
    result = CliRunner().invoke(main, ["--sglang", release, "--cache-dir", str(cache), "-q", "report",
                                       "--gpu", ",".join(GPUS), "--format", "json"])
    assert result.exit_code == 0, (result.exit_code, result.output[-2000:])
    payload = json.loads(result.stdout)
    assert payload["schema"] == "flagscan/report/v1"
    assert payload["sglang"]["version"] == release
    return payload


def summary(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{gpu: {"no_op": sorted dests, "counts": {status: n}}} (every status listed, zeros included)."""
    out: dict[str, dict[str, Any]] = {}
    for gpu, report in sorted(payload["gpus"].items()):
        statuses = {dest: v["status"] for dest, v in report["flags"].items()}
        counts = Counter(statuses.values())
        assert set(counts) <= set(STATUSES), counts
        out[gpu] = {"no_op": sorted(d for d, s in statuses.items() if s == "NO_OP"),
                    "counts": {s: counts.get(s, 0) for s in STATUSES}}
    return out


def read_locations(payload: dict[str, Any]) -> dict[str, set[str]]:
    """{dest: every read location the report gives} for the dests that are NO_OP on some GPU."""
    out: dict[str, set[str]] = {}
    for report in payload["gpus"].values():
        for dest, v in report["flags"].items():
            if v["status"] == "NO_OP":
                out.setdefault(dest, set()).update(r["location"] for r in v["reads"])
    return out


def load(release: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"{release}.json").read_text())


def write(release: str, payload: dict[str, Any]) -> Path:
    """Rewrite the golden file's GPU part from a report, keeping the reviews of NO_OPs still there."""
    path = GOLDEN / f"{release}.json"
    old = json.loads(path.read_text()).get("reviewed", {}) if path.exists() else {}
    gpus = summary(payload)
    dead = sorted({d for g in gpus.values() for d in g["no_op"]})
    doc = {"release": release, "gpus": gpus, "reviewed": {d: old[d] for d in dead if d in old}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    return path


def check_reviews(golden: dict[str, Any], tree_root: Path | None = None) -> None:
    """Every golden NO_OP has a review, no review is stale, each cites SGLang file:line (that exists)."""
    dead = {d for g in golden["gpus"].values() for d in g["no_op"]}
    reviewed = golden.get("reviewed", {})
    assert not dead - set(reviewed), f"NO_OPs without a review: {sorted(dead - set(reviewed))}"
    assert not set(reviewed) - dead, f"reviews of flags no longer NO_OP: {sorted(set(reviewed) - dead)}"
    for dest, why in reviewed.items():
        cited = CITATION.findall(why)
        assert cited, (dest, "cites no sglang/...py:LINE")
        if tree_root is None:
            continue
        for loc in cited:
            rel, line = loc.rsplit(":", 1)
            src = tree_root / rel
            assert src.is_file(), (dest, loc)
            assert 1 <= int(line) <= len(src.read_text().splitlines()), (dest, loc)


@pytest.mark.parametrize("release", RELEASES)
def test_golden_shape(release):
    """Offline: the golden files are well formed and every NO_OP in them is reviewed."""
    golden = load(release)
    assert set(golden) == {"release", "gpus", "reviewed"} and golden["release"] == release
    assert sorted(golden["gpus"]) == sorted(GPUS)
    for gpu, entry in golden["gpus"].items():
        assert set(entry) == {"no_op", "counts"}, gpu
        assert entry["no_op"] == sorted(set(entry["no_op"])), gpu
        assert list(entry["counts"]) == list(STATUSES), gpu
        assert entry["counts"]["NO_OP"] == len(entry["no_op"]), gpu
    check_reviews(golden)


@pytest.mark.real
@pytest.mark.parametrize("release", RELEASES)
def test_noop_golden(release, real_cache_dir):
    from flagscan.source import get_source

    payload = report_payload(release, real_cache_dir)
    if UPDATE:
        write(release, payload)
    golden = load(release)
    got = summary(payload)
    assert sorted(got) == sorted(golden["gpus"])
    for gpu in GPUS:
        assert got[gpu]["no_op"] == golden["gpus"][gpu]["no_op"], \
            f"{release} {gpu}: NO_OP set changed; FLAGSCAN_UPDATE_GOLDEN=1 rewrites it (then review the new ones)"
        assert got[gpu]["counts"] == golden["gpus"][gpu]["counts"], (release, gpu)
    check_reviews(golden, get_source(release, cache_dir=real_cache_dir).root)
    # the review of a NO_OP cites every read the report found dead
    for dest, locations in read_locations(payload).items():
        missing = sorted(loc for loc in locations if loc not in golden["reviewed"][dest])
        assert not missing, (release, dest, missing)


def _main(argv: list[str]) -> int:
    if not argv or argv[0] != "--write":
        print("usage: python -m tests.gates.test_noop_golden --write [RELEASE...]", file=sys.stderr)
        return 2
    cache = Path(os.environ.get("FLAGSCAN_TEST_CACHE", Path.home() / ".cache" / "flagscan-test"))
    for release in argv[1:] or RELEASES:
        print(write(release, report_payload(release, cache)))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
