"""cli: `flagscan rules` lists the lint rules; `flagscan rule FSnnn` prints one rule's documentation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from flagscan.cli import Exit, UserError, run_guarded
from flagscan.commands.common import emit_json

if TYPE_CHECKING:
    from flagscan.lint.model import Rule


def _rule_json(rule: Rule) -> dict[str, Any]:
    return {"code": rule.code, "name": rule.name, "severity": rule.severity.value, "default": rule.default,
            "fixable": rule.fixable, "needs": sorted(rule.needs), "summary": rule.summary}


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default=None, help="Output format.")
@click.pass_context
def rules(ctx: click.Context, fmt: str | None) -> None:
    """List every lint rule: code, name, severity, whether it runs by default."""
    fmt = fmt or (ctx.obj.format if ctx.obj else "text")

    def body() -> int:
        from flagscan.lint import all_rules
        from flagscan.ruledata import load

        families = load("lint").get("families", {})
        if fmt == "json":
            emit_json("rules", {"rules": [_rule_json(r) for r in all_rules()],
                                "families": {k: v["title"] for k, v in families.items()}})
            return Exit.OK
        current = None
        for r in all_rules():
            family = r.code[:3]
            if family != current:
                current = family
                click.echo(f"{family}xx  {families.get(family, {}).get('title', '')}")
            flags = ("" if r.default else " (opt-in)") + (" (fixable)" if r.fixable else "")
            click.echo(f"  {r.code}  {r.name:<24} {r.severity.value:<8} {r.summary}{flags}")
        return Exit.OK

    run_guarded(body)


@click.command("rule")
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default=None, help="Output format.")
@click.pass_context
def rule(ctx: click.Context, code: str, fmt: str | None) -> None:
    """Print the documentation of one lint rule (by code, e.g. FS201, or by name)."""
    fmt = fmt or (ctx.obj.format if ctx.obj else "text")

    def body() -> int:
        from flagscan.lint import find

        found = find(code)
        if found is None:
            raise UserError(f"no lint rule {code!r} (see `flagscan rules`)")
        if fmt == "json":
            emit_json("rule", {**_rule_json(found), "doc": found.doc.strip(),
                               "examples": {"valid": [e.command for e in found.valid],
                                            "invalid": [e.command for e in found.invalid]}})
        else:
            click.echo(f"{found.code} {found.name} [{found.severity.value}]"
                       + ("" if found.default else " (opt-in: --select " + found.code + ")") + "\n")
            click.echo(found.doc.strip())
        return Exit.OK

    run_guarded(body)


COMMANDS = [rules, rule]
