"""The rule contract: codes, documentation sections, families in rules/lint.toml, CLI listing."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.diagnostics import Severity
from flagscan.lint import all_rules, lint_file
from flagscan.lint.model import FIXTURE_TREE, SECTIONS
from flagscan.ruledata import load


def test_every_rule_documents_the_sections() -> None:
    for rule in all_rules():
        headings = re.findall(r"^## (.+)$", rule.doc, re.M)
        assert tuple(headings) == SECTIONS, (rule.code, headings)
        assert rule.summary and not rule.summary.startswith("#"), rule.code


def test_codes_are_unique_stable_and_in_a_family() -> None:
    data = load("lint")
    codes = [r.code for r in all_rules()]
    assert len(codes) == len(set(codes))
    assert not set(codes) & set(data["retired"])
    for rule in all_rules():
        assert rule.code[:3] in data["families"], rule.code
        assert isinstance(rule.severity, Severity)
        assert rule.module.rsplit(".", 1)[-1].startswith(rule.code.lower()), rule.module
    for family in data["families"].values():
        assert family["title"] and family["description"]
    assert "{version}" in data["sarif"]["release_source_uri"]


def test_rules_and_rule_commands() -> None:
    runner = CliRunner()
    listed = runner.invoke(main, ["rules", "--format", "json"])
    assert listed.exit_code == 0
    payload = json.loads(listed.output)
    assert payload["schema"] == "flagscan/rules/v1"
    assert [r["code"] for r in payload["rules"]] == [r.code for r in all_rules()]
    shown = runner.invoke(main, ["rule", "FS201"])
    assert shown.exit_code == 0 and "## Why is this bad?" in shown.output
    assert runner.invoke(main, ["rule", "knock-on-setting"]).exit_code == 0
    missing = runner.invoke(main, ["rule", "FS999"])
    assert missing.exit_code == 2 and "Traceback" not in missing.output


def test_every_kind_of_record_is_worded_by_exactly_one_rule() -> None:
    from flagscan.diagnostics import ProblemKind
    from flagscan.evaluate.resolution.diagnose import OutcomeKind

    owners: dict[str, list[str]] = {}
    for rule in all_rules():
        assert bool(rule.reports) == (rule.report is not None), rule.code
        for kind in rule.reports:
            owners.setdefault(kind, []).append(rule.code)
    kinds = {k.value for k in (*ProblemKind, *OutcomeKind)}
    assert set(owners) == kinds, sorted(set(owners) ^ kinds)
    assert all(len(codes) == 1 for codes in owners.values()), owners


def _units() -> list[str]:
    from tests.lint.helpers import ROOT, UNITS

    files = sorted(p for p in UNITS.iterdir() if p.is_file() and p.suffix != ".env")
    return [str(p.relative_to(ROOT)) for p in (*files, ROOT / "tests" / "lint" / "data" / "demo.service")]


@pytest.mark.parametrize("unit", _units())
def test_every_finding_on_the_fixture_units_has_its_rules_code_and_severity(unit, fixture_cache) -> None:
    from tests.lint.helpers import ROOT, options
    from tests.lint.test_rule_examples import declared_mismatches

    result = lint_file(str(ROOT / unit), options(FIXTURE_TREE, fixture_cache, gpu="h200"))
    assert result.diagnostics, unit  # every unit has findings against the lint tree: the check is not vacuous
    assert declared_mismatches(result.diagnostics) == []


def test_the_commands_outside_lint_show_the_rules_code_and_severity(fixture_cache) -> None:
    """`flagscan args` words the input stage's problems through the rules too."""
    from tests.lint.helpers import ROOT

    runner = CliRunner()
    out = runner.invoke(main, ["--sglang", str(ROOT / FIXTURE_TREE), "--cache-dir", str(fixture_cache), "args",
                               "--format", "json", "--", "--model-path", "m", "--enable", "1", "--chunked-prefill",
                               "8", "--tp-size", "two", "--tp-sise", "2"])
    assert out.exit_code == 1
    found = [(d["code"], d["severity"]) for c in json.loads(out.stdout)["commands"] for d in c["diagnostics"]]
    assert found == [("FS008", "error"), ("FS006", "info"), ("FS003", "error"), ("FS001", "error")]
