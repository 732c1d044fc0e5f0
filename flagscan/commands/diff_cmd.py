"""cli: `flagscan diff OLD NEW`: what an SGLang bump changes, and how given units fare after it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import click

from flagscan.cli import Exit, UserError, merge_options, progress, run_guarded
from flagscan.ruledata import model_path_of

if TYPE_CHECKING:
    from flagscan.commands.common import Revision
    from flagscan.diffing.model import DiffReport
    from flagscan.evaluate import ModelFacts, Scenario
    from flagscan.hardware import GpuProfile
    from flagscan.inputs import LaunchCommand
    from flagscan.lint import Target

FORMATS = ("text", "json", "markdown", "sarif")
THRESHOLD = {"error": 3, "warning": 2, "info": 1}


def revision_severity(doc: dict[str, Any]) -> int:
    """How serious the revision-level changes are: removals, renames and new start-up checks
    break or change existing commands (warning); additions and field changes inform (info)."""
    f, e = doc["flags"], doc["effects"]
    added_crash = any(r["certain"] for u in doc.get("startup", []) for r in u["added"])
    if f["removed"] or f["options"]["removed"] or f["renamed"] or e["rejections_added"] or added_crash:
        return THRESHOLD["warning"]
    if f["added"] or f["changed"] or e["added"] or e["removed"] or e["changed"]:
        return THRESHOLD["info"]
    return 0


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--service", "services", multiple=True, type=click.Path(dir_okay=False),
              help="A launch file to check against both revisions (repeatable).")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help="GPU(s) for --service (repeatable or a,b).")
@click.option("--gpu-count", type=int, default=None, help="Number of GPUs on the node.")
@click.option("--model-config", default=None, metavar="PATH", help="config.json or a model directory.")
@click.option("--model-arch", default=None, metavar="NAME", help="Model architecture.")
@click.option("--env", "env", multiple=True, metavar="KEY=VALUE", help="Environment variable (repeatable).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format.")
@click.option("--fail-on", type=click.Choice(list(THRESHOLD)), default="warning", show_default=True,
              help="Lowest severity (of unit findings and revision changes) that makes the exit code 1.")
@click.option("--cache-dir", type=click.Path(), default=None, help="Cache directory.")
@click.option("--offline", is_flag=True, default=False, help="Use the cache only.")
@click.pass_context
def diff(ctx: click.Context, old: str, new: str, services: tuple[str, ...], gpus: tuple[str, ...],
         gpu_count: int | None, model_config: str | None, model_arch: str | None, env: tuple[str, ...],
         fmt: str | None, fail_on: str, cache_dir: str | None, offline: bool) -> None:
    """Compare two SGLang revisions: flags, auto-adjustments, start-up checks, gates, your units."""
    from pathlib import Path

    fmt = fmt or (ctx.obj.format if ctx.obj else "text")
    opts = merge_options(ctx, cache_dir=Path(cache_dir) if cache_dir else None, offline=offline)

    def body() -> int:
        from flagscan.commands.common import emit_json, open_revision
        from flagscan.commands.scenario import gpu_profile, model_facts, parse_env
        from flagscan.diffing.run import diff_revisions
        from flagscan.lint import Target
        from flagscan.report import diff_text

        specs = [g for spec in gpus for g in spec.split(",") if g.strip()]
        if services and not specs:
            raise UserError("--service needs at least one --gpu")
        profiles = [gpu_profile(g, gpu_count, None, None, None) for g in specs]
        fixed = model_facts(model_config, model_arch, None) if (model_config or model_arch) else None

        def model_for(path: str | None) -> ModelFacts | None:
            return fixed if fixed is not None else (model_facts(None, None, path) if path else None)

        before, after = open_revision(opts, old), open_revision(opts, new)
        targets = [Target(r.tree.root, r.cache_dir, r.inventory, r.tree.version or spec)
                   for r, spec in ((before, old), (after, new))]
        progress(opts)("comparing flags, resolution rules and units")
        old_target, new_target = targets
        from flagscan.progress import STARTING, activity

        with activity("flagscan: comparing the two releases"):
            report = diff_revisions(old_target, new_target, before.sglang_json(), after.sglang_json(),
                                    services=services, gpus=profiles, model=model_for, env=parse_env(env))
        doc = report.to_json()
        with activity(STARTING):
            doc["startup"] = startup_changes(targets, services, zip(specs, profiles), fixed, parse_env(env)) \
                if services else []
        if fmt == "json":
            emit_json("diff", doc)
        elif fmt == "markdown":
            click.echo(diff_text.render_markdown(doc), nl=False)
        elif fmt == "sarif":
            click.echo(json.dumps(_sarif(report, after), indent=2))
        else:
            click.echo(diff_text.render(doc))
        worst = max([revision_severity(doc)] + [d.severity.rank for u in report.units for d in u.diagnostics])
        return Exit.FINDINGS if worst >= THRESHOLD[fail_on] else Exit.OK

    run_guarded(body)


def startup_changes(targets: Sequence[Target], services: Sequence[str], gpus: Iterable[tuple[str, GpuProfile]],
                    fixed: ModelFacts | None, env: dict[str, str]) -> list[dict[str, Any]]:
    """Per launch command and GPU: the startup and serving rejections the bump adds and removes."""
    from flagscan.commands.args_cmd import read_commands
    from flagscan.commands.scenario import model_facts
    from flagscan.evaluate import Scenario
    from flagscan.evaluate.startup.compare import compare_command
    from flagscan.inputs import parse_command

    old, new = targets
    out = []
    for label, profile in gpus:
        for path in services:
            for command in read_commands(path, ()):
                def values_for(target: Target, command: LaunchCommand = command) -> dict[str, Any]:
                    return {dest: v.value for dest, v in parse_command(command, target.inventory).values.items()}

                def scenario_for(values: dict[str, Any], command: LaunchCommand = command,
                                 profile: GpuProfile = profile) -> Scenario:
                    model = fixed if fixed is not None else model_facts(None, None, model_path_of(values))
                    return Scenario(profile, {**command.env, **env}, model)

                out.append(compare_command(old, new, values_for, scenario_for, (str(command.path), command.line),
                                           label).to_json())
    return out


def _sarif(report: DiffReport, after: Revision) -> dict[str, Any]:
    from flagscan.diagnostics import Diagnostic, Evidence, FileLocation, Severity
    from flagscan.lint import all_rules
    from flagscan.report import sarif

    findings = [(d, u.path) for u in report.units for d in u.diagnostics]
    for r in report.effects.rejections_added:
        # A start-up check new in this release: located in the new source, not in a unit.
        path, _, line = r["location"].rpartition(":")
        d = Diagnostic("FS504", Severity.WARNING, f"new start-up check: {r['value']}", None,
                       FileLocation(path, int(line or 1), 0), (Evidence(r["location"], r["condition"]),))
        findings.append((d, path))
    doc = sarif.document(findings, all_rules(), report.new, after.tree.root, {"summary": report.to_json()["summary"]})
    for result in doc["runs"][0]["results"]:
        loc = result["locations"][0]["physicalLocation"]["artifactLocation"]
        if loc["uri"].startswith("sglang/"):
            loc["uriBaseId"] = "SGLANG"
    return doc


COMMANDS = [diff]
