"""The rule contract: codes, documentation sections, families in rules/lint.toml, CLI listing."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from flagscan.cli import main
from flagscan.diagnostics import Severity
from flagscan.lint import all_rules
from flagscan.lint.model import SECTIONS
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
