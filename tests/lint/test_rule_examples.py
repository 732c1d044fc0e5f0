"""Every lint rule's own VALID/INVALID examples, collected from the rule modules and run: the
codes each must (not) report, where the rule's own findings are, the text `--fix` leaves
(for fixable rules), and that every finding has the code and severity its rule declares."""

from __future__ import annotations

import pytest

from flagscan.lint import all_rules, by_code
from tests.lint.helpers import run_example


def _cases():
    for rule in all_rules():
        for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid)):
            for i, example in enumerate(examples):
                marks = [pytest.mark.real] if example.real else []
                yield pytest.param(rule, kind, example, id=f"{rule.code}-{kind}-{i}", marks=marks)


def declared_mismatches(diagnostics) -> list[tuple[str, str, str | None]]:
    """(code, emitted severity, declared severity) of each finding its rule does not declare so."""
    rules = by_code()
    return [(d.code, d.severity.value, rules[d.code].severity.value if d.code in rules else None)
            for d in diagnostics if d.code not in rules or rules[d.code].severity is not d.severity]


@pytest.mark.parametrize(("rule", "kind", "example"), list(_cases()))
def test_rule_example(rule, kind, example, tmp_path, fixture_cache, real_cache_dir) -> None:
    cache = real_cache_dir if example.real else fixture_cache
    result = run_example(example, tmp_path, cache, fix=rule.fixable)
    codes = {d.code for d in result.diagnostics}
    assert declared_mismatches(result.diagnostics) == []
    if kind == "valid":
        assert rule.code not in codes, [d.message for d in result.diagnostics if d.code == rule.code]
        return
    assert rule.code in example.expect, "an INVALID example must expect its own rule's code"
    assert set(example.expect) <= codes, sorted(codes)
    own = {f"{d.location.line}:{d.location.column}" for d in result.diagnostics
           if d.code == rule.code and d.location is not None}
    assert own == set(example.at), sorted(own)
    if rule.fixable:
        assert result.fixed_text == example.fixed + "\n", result.fix_notes


def test_every_rule_has_examples() -> None:
    for rule in all_rules():
        assert rule.valid and rule.invalid, rule.code
        for example in rule.invalid:
            assert example.at, f"{rule.code}: an INVALID example says where its finding is"
            assert not rule.fixable or example.fixed is not None, f"{rule.code}: a fixable rule's INVALID " \
                                                                  "example says what --fix leaves"
