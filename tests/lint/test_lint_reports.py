"""Rendered lint output: golden text/SARIF/GitHub snapshots on the demo unit, SARIF schema validity."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from flagscan.cli import main
from tests.lint.helpers import ROOT

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"
DEMO = "tests/lint/data/demo.service"
UPDATE = os.environ.get("FLAGSCAN_UPDATE_GOLDEN") == "1"


LLAMA = "tests/data/groundtruth/models/llama-3-8b"  # a model config: the startup phase is decided


def _run(fixture_cache, *args: str):
    cwd = os.getcwd()
    os.chdir(ROOT)  # paths in the output are as given: relative, so the snapshots are portable
    try:
        return CliRunner().invoke(main, ["--sglang", "fixtures/trees/lint", "--cache-dir", str(fixture_cache),
                                         "-q", "lint", "--gpu", "h200", *args])
    finally:
        os.chdir(cwd)


def _portable_sarif(text: str) -> dict:
    doc = json.loads(text)
    for run in doc["runs"]:
        run["originalUriBaseIds"]["SGLANG"]["uri"] = "file:///SGLANG/"
        run["tool"]["driver"]["version"] = "VERSION"
    return doc


def _check(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        if not UPDATE:
            pytest.fail(f"wrote new snapshot {path}; review it and run again")
    assert actual == path.read_text(), f"{name} changed; FLAGSCAN_UPDATE_GOLDEN=1 rewrites the snapshot"


def test_text_snapshot(fixture_cache) -> None:
    result = _run(fixture_cache, DEMO)
    assert result.exit_code == 1
    _check("demo.txt", result.stdout)


def test_github_snapshot(fixture_cache) -> None:
    result = _run(fixture_cache, "--format", "github", DEMO)
    assert result.exit_code == 1
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in result.stdout.splitlines())
    _check("demo.github", result.stdout)


def test_sarif_snapshot_and_schema(fixture_cache) -> None:
    result = _run(fixture_cache, "--format", "sarif", DEMO)
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(doc)
    results = doc["runs"][0]["results"]
    related = [r for r in results if r.get("relatedLocations")]
    assert related and all(loc["physicalLocation"]["artifactLocation"]["uriBaseId"] == "SGLANG"
                           and loc["physicalLocation"]["artifactLocation"]["uri"].startswith("sglang/srt/")
                           for r in related for loc in r["relatedLocations"])
    _check("demo.sarif.json", json.dumps(_portable_sarif(result.stdout), indent=2) + "\n")


def test_sarif_points_at_the_release_tag_for_a_release() -> None:
    from flagscan.report.sarif import source_base

    base = source_base({"provider": "pypi", "version": "0.5.10", "revision": "0.5.10"}, None)
    assert base["uri"] == "https://github.com/sgl-project/sglang/blob/v0.5.10/python/"


def test_json_is_emitted_when_clean(fixture_cache, tmp_path) -> None:
    clean = tmp_path / "clean.cmd"
    clean.write_text("--model-path m --tp-size 2 --chunked-prefill-size 4096 --tokenizer-worker-num 4\n")
    result = _run(fixture_cache, "--format", "json", "--model-config", LLAMA, str(clean))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["diagnostics"] == [] and payload["summary"]["files"] == 1
    assert payload["gates"] == "analysed"   # --gpu h200: the gates were analysed, and nothing found
