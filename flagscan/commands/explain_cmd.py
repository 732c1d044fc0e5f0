"""cli: `flagscan explain SETTING`: who sets it, who reads it under which gates, what it steers, the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from flagscan.cli import Exit, LaunchArgs, merge_options, run_guarded
from flagscan.commands.report_cmd import (
    Launch,
    apply_startup,
    check_flag,
    gate_reports,
    gate_source_options,
    launch_for,
    load_tree_reads,
    warn_parse_errors,
)
from flagscan.commands.scenario import gpu_list, scenario_options

if TYPE_CHECKING:
    from flagscan.hardware import GpuProfile


@click.command("explain", cls=LaunchArgs)
@gate_source_options(("text", "json"))
@scenario_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None)
@click.argument("setting")
@click.argument("file", required=False)
@click.pass_context
def explain(ctx: click.Context, sglang: str | None, cache_dir: str | None, offline: bool, fmt: str | None,
            gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
            model_config: str | None, model_arch: str | None, env: tuple[str, ...], kind: str | None, setting: str,
            file: str | None, argv: tuple[str, ...]) -> None:
    """Explain one setting as a decision tree; with --gpu, the verdict on that GPU."""
    from pathlib import Path

    opts = merge_options(ctx, sglang=sglang, cache_dir=Path(cache_dir) if cache_dir else None, offline=offline)
    fmt = fmt or (ctx.obj.format if ctx.obj else "text")

    def body() -> int:
        from flagscan.commands.common import emit_json, open_revision
        from flagscan.report import gates_explain, startup_text

        rev = open_revision(opts)
        dest = check_flag(rev, setting)
        reads = load_tree_reads(rev, opts.quiet)
        gpus = gpu_list(gpu, gpu_count, gpu_memory, gpu_name, cuda, required=False)
        launches: list[Launch] = []

        def launch_of(profile: GpuProfile) -> Launch:
            launches.append(launch_for(rev, profile, file, argv, kind, env, model_config, model_arch))
            return launches[-1]

        verdicts = gate_reports(rev, reads, gpus, launch_of, flags=[dest]) if gpus else {}
        if launches and (file or argv):
            warn_parse_errors(launches[0])
        facts = gates_explain.collect(reads, rev.inventory, dest)
        for (label, _p), launch in zip(gpus, launches):
            apply_startup(verdicts[label]["flags"], launch)
        raises = startup_text.raises_on(dest, [(label, launch.startup_result) for (label, _p), launch
                                               in zip(gpus, launches)]) if file or argv else None
        if fmt == "json":
            emit_json("explain", {"setting": dest, **facts,
                                  "verdicts": {g: v["flags"][dest] for g, v in verdicts.items()},
                                  "raises": raises}, rev)
        else:
            click.echo(gates_explain.render(dest, facts, verdicts, rev.tree.version or ""))
            if raises is not None:
                click.echo("\n".join(startup_text.render_raises(dest, raises)))
        return Exit.OK

    run_guarded(body)


COMMANDS = [explain]
