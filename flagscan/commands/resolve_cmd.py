"""cli: `flagscan resolve`: the configuration SGLang will actually run with, and why."""

from __future__ import annotations

import click

from flagscan.cli import Exit, UserError, _merge, _source_options, run_guarded
from flagscan.commands.args_cmd import read_commands
from flagscan.commands.common import emit_json, open_revision
from flagscan.commands.scenario import gpu_profile, model_facts, parse_env, scenario_options
from flagscan.report import resolve_text


@click.command("resolve", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@_source_options
@scenario_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None)
@click.option("--all", "show_all", is_flag=True, help="Show every setting, not only what differs.")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def resolve(ctx, sglang, cache_dir, offline, fmt, gpu, gpu_count, gpu_memory, gpu_name, cuda, model_config,
            model_arch, env, kind, show_all, file, argv) -> None:
    """Predict every setting SGLang will run with for a launch command on a GPU, with causes."""
    opts = _merge(ctx, sglang=sglang, cache_dir=cache_dir, offline=offline, format=fmt)

    def body() -> int:
        from flagscan.evaluate import Scenario, predict
        from flagscan.evaluate.diagnose import knock_on_diagnostics
        from flagscan.inputs import parse_command

        commands = read_commands(file, argv, kind)
        profile = gpu_profile(gpu, gpu_count, gpu_memory, gpu_name, cuda)
        extra_env = parse_env(env)
        rev = open_revision(opts)
        results = []
        for command in commands:
            parsed = parse_command(command, rev.inventory)
            values = {dest: v.value for dest, v in parsed.values.items()}
            facts = model_facts(model_config, model_arch, values.get("model_path") if isinstance(values.get("model_path"), str) else None)
            hw = _count_from_command(profile, values, gpu_count)
            scenario = Scenario(hw, {**command.env, **extra_env}, facts)
            resolution = predict(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
            diagnostics = list(parsed.diagnostics) + knock_on_diagnostics(resolution, parsed, rev.inventory)
            results.append((command, parsed, scenario, resolution, diagnostics))
        if opts.format == "json":
            payload = resolve_text.to_json(results[0], show_all=True)
            if len(results) > 1:
                payload["commands"] = [resolve_text.to_json(r, show_all=True) for r in results]
            emit_json("resolve", payload, rev)
        else:
            click.echo(resolve_text.render(results, show_all=show_all))
        worst = max((d.severity.rank for r in results for d in r[4]), default=0)
        return Exit.FINDINGS if worst >= 3 else Exit.OK

    run_guarded(body)


def _count_from_command(profile, values, explicit):
    """Without --gpu-count, the node has as many GPUs as the command's TP x PP width."""
    from dataclasses import replace

    if explicit is not None:
        return profile
    width = 1
    for dest in ("tp_size", "tensor_parallel_size", "pp_size", "pipeline_parallel_size"):
        v = values.get(dest)
        if isinstance(v, int) and v > 0:
            width *= v
    return replace(profile, count=max(profile.count, width))


COMMANDS = [resolve]
