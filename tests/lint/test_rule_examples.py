"""Every lint rule's own VALID/INVALID examples, collected from the rule modules and run."""

from __future__ import annotations

import pytest

from flagscan.lint import all_rules
from flagscan.lint.gates_port import gates_module
from tests.lint.helpers import run_example

_STAGES = {"gates": lambda: gates_module() is not None}


def _cases():
    for rule in all_rules():
        for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid)):
            for i, example in enumerate(examples):
                marks = [pytest.mark.real] if example.real else []
                yield pytest.param(rule, kind, example, id=f"{rule.code}-{kind}-{i}", marks=marks)


@pytest.mark.parametrize(("rule", "kind", "example"), list(_cases()))
def test_rule_example(rule, kind, example, tmp_path, fixture_cache, real_cache_dir) -> None:
    if example.pending and not _STAGES[example.pending]():
        pytest.skip(f"pending: flagscan.evaluate.{example.pending} is not available yet")
    cache = real_cache_dir if example.real else fixture_cache
    result = run_example(example, tmp_path, cache)
    codes = {d.code for d in result.diagnostics}
    if kind == "valid":
        assert rule.code not in codes, [d.message for d in result.diagnostics if d.code == rule.code]
    else:
        assert rule.code in example.expect, "an INVALID example must expect its own rule's code"
        assert set(example.expect) <= codes, sorted(codes)


def test_every_rule_has_examples() -> None:
    for rule in all_rules():
        assert rule.valid and rule.invalid, rule.code
