"""tests: the startup/serving dataset (tests/data/startup) loads, follows its schema, and its locations are real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

from flagscan.source import get_source

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "startup"
MODEL_DIRS = (ROOT / "tests" / "data" / "groundtruth" / "models", DATA / "models")
MIN_INCIDENTS = 40  # the dataset's size (README; one withdrawn, tests/data/startup/README.md): deleting an entry fails the count test
MIN_GOOD = 21

PHASES = {"startup", "serving", "resolution"}
OUTCOMES = {"crash", "starts", "setting"}
LOCATION = re.compile(r"^sglang/[\w/.]+\.py:[1-9]\d*$")
RELEASE = re.compile(r"^\d+\.\d+\.\d+(\.post\d+)?$")
SM = re.compile(r"^sm\d{2,3}$")
REQUIRED = {"id": str, "title": str, "url": str, "release": str, "gpu": str, "gpu_count": int,
            "argv": list, "env": dict, "cause_in_python": bool, "reasoning": str, "expected": dict}


def _entries(kind: str) -> list[tuple[Path, dict]]:
    return [(p, tomllib.loads(p.read_text())) for p in sorted((DATA / kind).glob("*.toml"))]


INCIDENTS = _entries("incidents")
GOOD = _entries("good")
ALL = [("incidents", p, e) for p, e in INCIDENTS] + [("good", p, e) for p, e in GOOD]


def _gpu_names() -> set[str]:
    table = tomllib.loads((ROOT / "rules" / "gpus.toml").read_text())["gpu"]
    names = set(table)
    for entry in table.values():
        names.update(entry.get("aliases", []))
    return names


GPU_NAMES = _gpu_names()


def _problems(kind: str, path: Path, e: dict) -> list[str]:
    out = [f"{k} missing or not {t.__name__}" for k, t in REQUIRED.items()
           if not isinstance(e.get(k), t) or (t is int and isinstance(e.get(k), bool))]
    if out:
        return out
    if e["id"] != path.stem:
        out.append("id differs from the file name")
    if not e["url"].startswith("https://github.com/sgl-project/sglang/"):
        out.append("url is not in SGLang's repository or tracker")
    if not RELEASE.match(e["release"]):
        out.append("release is not a version")
    gpu = e["gpu"]
    if gpu not in GPU_NAMES:
        if not SM.match(gpu):
            out.append(f"gpu {gpu!r} is neither a table entry nor smNN")
        elif not isinstance(e.get("gpu_name"), str):
            out.append("gpu smNN outside the table needs gpu_name")
    if e["gpu_count"] < 1:
        out.append("gpu_count < 1")
    if ("model" in e) == ("model_arch" in e):
        out.append("exactly one of model / model_arch")
    if "model" in e and not any((d / e["model"] / "config.json").is_file() for d in MODEL_DIRS):
        out.append(f"model dir {e['model']!r} has no config.json")
    argv = e["argv"]
    if not all(isinstance(a, str) for a in argv) or not ({"--model-path", "--model"} & set(argv)):
        out.append("argv must be strings and include --model-path")
    if not all(isinstance(v, str) for v in e["env"].values()):
        out.append("env values must be strings")
    exp = e["expected"]
    if exp.get("phase") not in PHASES or exp.get("outcome") not in OUTCOMES:
        out.append("expected.phase / expected.outcome not in the closed sets")
    outcome = exp.get("outcome")
    if (kind == "good") != (outcome == "starts"):
        out.append("good entries (and only they) have outcome 'starts'")
    if outcome in {"crash", "setting"}:
        if not LOCATION.match(str(exp.get("location", ""))):
            out.append("expected.location is not sglang/...py:N")
        if not isinstance(exp.get("statement"), str) or not exp["statement"].strip():
            out.append("expected.statement missing")
    if outcome == "crash" and not all(isinstance(exp.get(k), str) and exp[k] for k in ("exception", "message")):
        out.append("crash needs exception and message")
    if outcome == "setting" and not (isinstance(exp.get("settings"), dict) and exp["settings"]):
        out.append("setting needs a non-empty expected.settings table")
    if exp.get("phase") == "serving" and not isinstance(exp.get("condition"), str):
        out.append("serving needs expected.condition")
    if outcome == "crash" and e["cause_in_python"] and not re.search(r"\braise\b|\bassert\b", exp.get("statement", "")):
        out.append("a Python-caused crash cites a raise or assert statement")
    if kind == "incidents" and len(re.findall(r"\.py:\d+", e["reasoning"])) < 2:
        out.append("reasoning cites too few file:line hops")
    return out


@pytest.mark.parametrize(("kind", "path", "entry"), ALL, ids=[f"{k}/{p.stem}" for k, p, _ in ALL])
def test_entry_follows_the_schema(kind: str, path: Path, entry: dict) -> None:
    assert _problems(kind, path, entry) == []


def test_ids_are_unique_across_both_folders() -> None:
    ids = [e.get("id") for _, _, e in ALL]
    assert len(ids) == len(set(ids))


def test_the_validator_rejects_broken_entries() -> None:
    path, good = INCIDENTS[0]
    broken = {**good, "gpu": "h999", "expected": {**good["expected"], "location": "server_args.py:12"}}
    assert len(_problems("incidents", path, broken)) >= 2
    assert _problems("incidents", path, {k: v for k, v in good.items() if k != "release"})


def test_dataset_reaches_its_acceptance_counts() -> None:
    assert len(INCIDENTS) >= MIN_INCIDENTS, f"{len(INCIDENTS)} incidents (want {MIN_INCIDENTS})"
    assert len(GOOD) >= MIN_GOOD, f"{len(GOOD)} good (want {MIN_GOOD})"


LOCATED = [(p, e) for p, e in INCIDENTS if "location" in e.get("expected", {})]


def test_every_incident_is_checked_against_real_source() -> None:
    """Every incident carries a location, so the real test below checks all of them, not a sample."""
    assert [p.stem for p, _ in LOCATED] == [p.stem for p, _ in INCIDENTS]


@pytest.mark.real
@pytest.mark.parametrize(("path", "entry"), LOCATED, ids=[p.stem for p, _ in LOCATED])
def test_location_holds_the_cited_statement(path: Path, entry: dict, real_cache_dir: Path) -> None:
    """Each incident's release (fetched through flagscan's source layer) holds the cited statement at its line.

    All incidents are verified; with a warm release cache the whole set takes a few seconds.
    """
    tree = get_source(entry["release"], cache_dir=real_cache_dir)
    rel, line = entry["expected"]["location"].rsplit(":", 1)
    lines = (tree.root / rel).read_text().splitlines()
    assert entry["expected"]["statement"].strip() in lines[int(line) - 1]
