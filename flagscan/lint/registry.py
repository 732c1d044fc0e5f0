"""lint: every rule module under flagscan/lint/rules/, loaded once, by code."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from flagscan.lint.model import CODE, Rule


class RuleError(Exception):
    """A rule module that breaks the rule contract (a defect, caught by the test suite)."""


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    import flagscan.lint.rules as package

    rules: list[Rule] = []
    seen: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        rule = Rule.from_module(module)
        if not CODE.match(rule.code):
            raise RuleError(f"{module.__name__}: bad code {rule.code!r}")
        if rule.code in seen:
            raise RuleError(f"{rule.code} is defined by {seen[rule.code]} and {module.__name__}")
        seen[rule.code] = module.__name__
        if bool(rule.reports) != (rule.report is not None):
            raise RuleError(f"{module.__name__}: REPORTS and report() go together")
        rules.append(rule)
    owners: dict[str, str] = {}
    for rule in rules:
        for kind in sorted(rule.reports):
            if kind in owners:
                raise RuleError(f"{kind} is reported by {owners[kind]} and {rule.code}")
            owners[kind] = rule.code
    return tuple(sorted(rules, key=lambda r: r.code))


def by_code() -> dict[str, Rule]:
    return {r.code: r for r in all_rules()}


def reporter(kind: object) -> Rule:
    """The rule that words records of this kind (a ProblemKind or an OutcomeKind)."""
    key = str(getattr(kind, "value", kind))
    for rule in all_rules():
        if key in rule.reports:
            return rule
    raise RuleError(f"no lint rule reports {key}")


def find(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    for rule in all_rules():
        if rule.code == key.upper() or rule.name == key.lower():
            return rule
    return None
