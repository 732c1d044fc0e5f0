"""lint: findings that only the model would decide, said once when the model was not given."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from flagscan.diagnostics import Diagnostic, Severity
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.lint.context import Context


def model_missing(ctx: Context) -> bool:
    """No complete config.json for the command's model (not given, not in the HF cache)."""
    model = getattr(ctx.scenario, "model", None)
    return model is None or not model.complete


def on_model(needs: Iterable[str]) -> bool:
    """Whether, with the model not given, these needs point at it: they name the model (its
    config.json or its files), or they name no other fact an operator could give (an
    environment variable, a setting, a package, the GPU: rules/lint.toml [model]), so the
    unknown came through code that read the model."""
    rules = load("lint").get("model", {})
    named = tuple(rules.get("needs", ["model"]))
    elsewhere = tuple(rules.get("decided_elsewhere", []))
    if any(n == p or n.startswith(p) for n in needs for p in named):
        return True
    return not any(n.startswith(p) for n in needs for p in elsewhere)


def split(ctx: Context, diagnostics: list[Diagnostic],
          needs_of: Callable[[Diagnostic], Iterable[str]]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(kept, on the model): with the model missing, those whose needs name it are set apart."""
    if not model_missing(ctx):
        return list(diagnostics), []
    kept: list[Diagnostic] = []
    model: list[Diagnostic] = []
    for d in diagnostics:
        (model if on_model(needs_of(d)) else kept).append(d)
    return kept, model


def summary(ctx: Context, code: str, severity: Severity, message: str, found: list[Diagnostic],
            needs: tuple[str, ...] = ("model",)) -> Diagnostic:
    """One finding for `found`: how many there are, with each one's SGLang place as evidence."""
    evidence = tuple(sorted({e for d in found for e in d.evidence[:1]}, key=lambda e: (e.location, e.text)))
    return Diagnostic(code, severity, message.format(count=len(found)), None, ctx.command_location, evidence,
                      {"count": len(found), "needs": list(needs), "summarised": sorted(d.message for d in found)})
