"""cli: `flagscan resolve`: the configuration SGLang will actually run with, and why."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flagscan.cli import (
    Exit,
    LaunchArgs,
    Options,
    UserError,
    merge_options,
    package_option,
    run_guarded,
    source_options,
)
from flagscan.commands.args_cmd import read_commands
from flagscan.commands.common import begin_startup_cold, emit_json, open_revision
from flagscan.commands.scenario import gpu_list, model_facts, parse_env, scenario_options
from flagscan.report import resolve_text
from flagscan.ruledata import model_path_of

if TYPE_CHECKING:
    from flagscan.commands.common import Revision
    from flagscan.evaluate.packages import Packages
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.evaluate.startup.results import StartupResult
    from flagscan.hardware import GpuProfile
    from flagscan.inputs import LaunchCommand
    from flagscan.report.resolve_text import Predicted


@click.command("resolve", cls=LaunchArgs)
@source_options
@scenario_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None)
@click.option("--all", "show_all", is_flag=True, help="Show every setting, not only what differs.")
@click.option("--no-startup", "no_startup", is_flag=True,
              help="Predict the argument resolution only, not what SGLang's startup code does with it.")
@package_option
@click.argument("file", required=False)
@click.pass_context
def resolve(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None,
            gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
            model_config: str | None, model_arch: str | None, env: tuple[str, ...], kind: str | None, show_all: bool,
            no_startup: bool, package: tuple[str, ...], file: str | None, argv: tuple[str, ...]) -> None:
    """Predict every setting SGLang will run with for a launch command on a GPU, with causes."""
    opts = merge_options(ctx, sglang=sglang, cache_dir=cache_dir, offline=offline, format=fmt)
    pairs = tuple(opts.packages) + tuple(package)

    def body() -> int:
        from flagscan.evaluate import Scenario, predict
        from flagscan.evaluate.startup.predict import predict_startup
        from flagscan.inputs import parse_command
        from flagscan.lint.findings import checked, resolution_diagnostics
        from flagscan.progress import RESOLVING, STARTING, activity

        commands = read_commands(file, argv, kind)
        gpus = gpu_list(gpu, gpu_count, gpu_memory, gpu_name, cuda)
        extra_env = parse_env(env)
        rev = open_revision(opts)
        packages = _packages(rev, opts, pairs)
        for command in commands:
            _check_program(rev, opts, command, model_config)
        parsed_all = [checked(parse_command(command, rev.inventory)) for command in commands]
        sections: dict[str, list[Predicted]] = {}
        startups: dict[int, StartupResult | None] = {}
        for label, profile in gpus:
            results: list[Predicted] = []
            for command, parsed in zip(commands, parsed_all):
                values = {dest: v.value for dest, v in parsed.values.items()}
                path = model_path_of(values)
                facts = model_facts(model_config, model_arch, path)
                hw = _count_from_command(profile, values, gpu_count)
                scenario = Scenario(hw, {**command.env, **extra_env}, facts, packages.get(hw.vendor))
                with activity(RESOLVING):
                    if not no_startup:
                        begin_startup_cold(rev, values, scenario)
                    resolution = predict(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
                diagnostics = list(parsed.diagnostics) + resolution_diagnostics(resolution, parsed)
                results.append((command, parsed, scenario, resolution, diagnostics))
                if no_startup:
                    startups[id(resolution)] = None
                    continue
                with activity(STARTING):
                    startups[id(resolution)] = predict_startup(rev.tree.root, rev.cache_dir, rev.inventory, values,
                                                               scenario)
            sections[label] = results
        if opts.format == "json":
            payloads = {label: _payload(results, startups) for label, results in sections.items()}
            # One GPU: the payload itself; several: one per GPU under "gpus", as report does.
            emit_json("resolve", next(iter(payloads.values())) if len(payloads) == 1 else {"gpus": payloads}, rev)
        elif len(sections) == 1:
            click.echo(_text(next(iter(sections.values())), startups, show_all))
        else:
            click.echo("\n\n".join(f"== {label}\n" + _text(results, startups, show_all)
                                    for label, results in sections.items()))
        worst = max((d.severity.rank for rs in sections.values() for r in rs for d in r[4]), default=0)
        crashes = any(s is not None and any(x.certain for x in s.rejections) for s in startups.values())
        return Exit.FINDINGS if worst >= 3 or crashes else Exit.OK

    run_guarded(body)


def _payload(results: list[Predicted], startups: dict[int, StartupResult | None]) -> dict[str, Any]:
    from flagscan.report import startup_text

    def one(r: Predicted) -> dict[str, Any]:
        data = startup_text.merge_json(resolve_text.to_json(r, show_all=True), startups.get(id(r[3])))
        data["env"] = _env_json(r[3])
        data["packages"] = dict(sorted(getattr(r[3], "packages", {}).items()))
        return data

    payload = one(results[0])
    if len(results) > 1:
        payload["commands"] = [one(r) for r in results]
    return payload


def _text(results: list[Predicted], startups: dict[int, StartupResult | None], show_all: bool) -> str:
    """Each command's resolution, then what its startup phase does."""
    from flagscan.report import startup_text

    blocks = []
    for r in results:
        lines = [resolve_text.render([r], show_all=show_all)]
        lines.extend(_env_lines(r[3]))
        lines.extend(startup_text.render(startups.get(id(r[3]))))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _packages(rev: Revision, opts: Options, pairs: tuple[str, ...]) -> dict[str, Packages]:
    """vendor -> the run's packages (the release's pins apply to the vendors its wheel is built for)."""
    from flagscan.cli import progress
    from flagscan.evaluate.packages import PackageSpecError, for_revision

    out: dict[str, Packages] = {}
    for vendor in ("nvidia", "amd"):
        try:
            out[vendor], why = for_revision(rev.tree, rev.cache_dir, offline=opts.offline, pairs=pairs, vendor=vendor)
        except PackageSpecError as exc:
            raise UserError(str(exc)) from None
        if why and vendor == "nvidia":
            progress(opts)(f"the release's package pins are not known ({why}); packages not given stay unknown")
    return out


def _check_program(rev: Revision, opts: Options, command: LaunchCommand, model_config: str | None) -> None:
    """The command's program must be the one whose resolution flagscan follows (the language-model
    server's parser, rules/programs.toml); another is said in one line, never read as that one."""
    from flagscan.lint.programs import choose, model_files
    from flagscan.source.release_meta import release_meta

    args = [a.text for a in command.args]
    model_path = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--model-path"), None)
    meta, _why = release_meta(rev.tree, rev.cache_dir, offline=opts.offline)
    scripts = dict(meta.console_scripts) if meta is not None else None
    choice = choose(rev.tree.root, rev.cache_dir, rev.inventory, command.launcher, args,
                    model_files(model_config, model_path), scripts)
    where = f"{command.path}:{command.line}"
    if choice.warning is not None:
        from flagscan.cli import progress

        progress(opts)(f"{where}: {choice.warning}")
    if choice.inventory is None:
        raise UserError(f"{where}: {choice.note}")
    if choice.parser != "server":
        raise UserError(f"{where}: `{' '.join(command.launcher)}` runs the {choice.parser} server ({choice.because}); "
                        f"flagscan follows the language-model server's resolution only (its flags: flagscan lint)")


def _env_json(resolution: Resolution) -> dict[str, Any]:
    """{NAME: {"value", "certain", "because"}}: what the resolution sets (None: removes)."""
    return {name: s.to_json() for name, s in sorted(getattr(resolution, "env", {}).items())}


def _env_lines(resolution: Resolution) -> list[str]:
    lines = []
    for name, s in sorted(getattr(resolution, "env", {}).items()):
        value = "unset" if s.value is None and s.certain else (repr(s.value) if s.value is not None else "unknown")
        last = s.because[-1]
        lines.append(f"  env {name} = {value}{'' if s.certain else ' (uncertain)'}  "
                     f"[{last.how} at {last.location} in {last.handler}"
                     + (f" when {last.condition}" if last.condition else "") + "]")
    return lines


def _count_from_command(profile: GpuProfile, values: dict[str, Any], explicit: int | None) -> GpuProfile:
    """Without --gpu-count, the node has as many GPUs as the command's TP x PP width."""
    from dataclasses import replace

    if explicit is not None:
        return profile
    from flagscan.ruledata import command_width

    return replace(profile, count=max(profile.count, command_width(values)))


COMMANDS = [resolve]
