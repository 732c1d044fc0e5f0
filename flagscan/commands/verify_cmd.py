"""cli: `flagscan verify`: the prediction for a launch command against what SGLang really resolved."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from flagscan.cli import Exit, LaunchArgs, UserError, merge_options, progress, run_guarded, source_options
from flagscan.commands.common import emit_json, open_revision
from flagscan.commands.scenario import gpu_profile, model_facts, parse_env, scenario_options
from flagscan.report import verify_text
from flagscan.ruledata import model_path_of

if TYPE_CHECKING:
    from flagscan.hardware import GpuProfile
    from flagscan.inputs import LaunchCommand
    from flagscan.verify.observed import Observed

FAIL_ON = ("gap", "surprise", "never")


@click.command("verify", cls=LaunchArgs)
@source_options
@scenario_options
@click.option("--url", metavar="URL", default=None,
              help="A running server (http://HOST:PORT): reads /server_info, else /get_server_info, and /model_info.")
@click.option("--log", "log_file", metavar="FILE|-", default=None,
              help="An SGLang log or `journalctl -u UNIT` output holding the server_args=... line ('-': stdin).")
@click.option("--local", is_flag=True, default=False,
              help="EXECUTES SGLANG CODE: run the installed SGLang's own parsing and resolution of the command "
                   "on this machine's GPU, in a subprocess (no weights loaded, no server started).")
@click.option("--python", "python", metavar="PATH", default=None,
              help="--local: the Python interpreter that has SGLang installed (default: this one).")
@click.option("--stub-missing", is_flag=True, default=False,
              help="--local: replace GPU-kernel packages that are not installed (sgl_kernel, flashinfer...) "
                   "by inert modules, so resolution runs where only SGLang's Python dependencies are.")
@click.option("--timeout", type=float, default=None,
              help="Seconds to wait for the server (default 10) or the local resolution (default 300).")
@click.option("--api-key", envvar="FLAGSCAN_API_KEY", default=None,
              help="Bearer token for a server started with --api-key (or $FLAGSCAN_API_KEY).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="gap", show_default=True,
              help="Exit 1 on gaps (flagscan was wrong), on gaps or surprises, or never.")
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None)
@click.argument("file", required=False)
@click.pass_context
def verify(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None,
           gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
           model_config: str | None, model_arch: str | None, env: tuple[str, ...], url: str | None,
           log_file: str | None, local: bool, python: str | None, stub_missing: bool, timeout: float | None,
           api_key: str | None, fail_on: str, kind: str | None, file: str | None, argv: tuple[str, ...]) -> None:
    """Compare flagscan's prediction with what SGLang actually resolved.

    One of: --url (a running server), --log (its log), --local (the installed SGLang run here).
    The launch command comes as FILE or after `--`; a server that reports its launch
    command (0.5.20+) needs neither. Differences are `gap` (flagscan was wrong or silent),
    `surprise` (SGLang changed what you set, as predicted) or `unpredictable` (seeds, ports,
    paths). Exit 1 on any gap (see --fail-on), 2 when the server, log or command cannot be read.
    """
    opts = merge_options(ctx, sglang=sglang, cache_dir=cache_dir, offline=offline, format=fmt)

    def body() -> int:
        from flagscan.evaluate import Scenario, predict
        from flagscan.inputs import parse_command
        from flagscan.verify import Kind, VerifyError, compare
        from flagscan.verify.compare import nothing_compared

        modes = [m for m, on in (("--url", url), ("--log", log_file), ("--local", local)) if on]
        if len(modes) != 1:
            raise UserError("give exactly one of --url, --log or --local")
        say = progress(opts)
        try:
            observed, probe_argv = _observe(url, log_file, local, file, argv, kind, python, stub_missing,
                                            timeout, api_key, parse_env(env), say)
        except VerifyError as exc:
            raise UserError(str(exc)) from exc
        commands = _commands(file, argv, kind, observed, probe_argv)
        spec = opts.sglang or _revision_for(observed, say)
        rev = open_revision(opts, spec)
        command = commands[0]
        parsed = parse_command(command, rev.inventory)
        values = {dest: v.value for dest, v in parsed.values.items()}
        profile = _profile(gpu, gpu_count, gpu_memory, gpu_name, cuda, local, observed)
        from flagscan.commands.resolve_cmd import _count_from_command

        profile = _count_from_command(profile, values, gpu_count)
        arch = model_arch or (observed.architectures[0] if observed.architectures and not model_config else None)
        path = model_path_of(values)
        facts = model_facts(model_config, arch, path)
        scenario = Scenario(profile, {**command.env, **parse_env(env)}, facts)
        from flagscan.progress import RESOLVING, activity

        with activity(RESOLVING):
            resolution = predict(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
        report = compare(resolution, observed)
        empty = nothing_compared(report, resolution, observed)
        if empty is not None:
            raise UserError(f"verify: {empty}")
        if opts.format == "json":
            emit_json("verify", verify_text.to_json(report, observed, scenario), rev)
        else:
            click.echo(verify_text.render(report, observed, scenario))
        failing = {"gap": {Kind.GAP}, "surprise": {Kind.GAP, Kind.SURPRISE}, "never": set()}[fail_on]
        return Exit.FINDINGS if any(d.kind in failing for d in report.differences) else Exit.OK

    run_guarded(body)


def _observe(url: str | None, log_file: str | None, local: bool, file: str | None, argv: tuple[str, ...],
             kind: str | None, python: str | None, stub_missing: bool, timeout: float | None, api_key: str | None,
             env: dict[str, str], say: Callable[[str], None]) -> tuple[Observed, list[str] | None]:
    """What SGLang resolved; for --local also the argv it was run with."""
    if url:
        from flagscan.verify.remote import observe_url

        say(f"asking {url}")
        return observe_url(url, timeout=timeout or 10.0, api_key=api_key), None
    if log_file:
        from flagscan.verify.logscan import observe_log

        if log_file == "-":
            return observe_log(sys.stdin.read(), "<stdin>"), None
        try:
            with open(log_file, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            raise UserError(f"cannot read log {log_file}: {exc.strerror or exc}") from exc
        return observe_log(text, log_file), None
    from flagscan.verify.local import observe_local, run_probe

    commands = _commands(file, argv, kind, None, None)
    command = commands[0]
    say("running the installed SGLang's own resolution (executes SGLang code, no server, no weights)")
    result = run_probe(list(command.argv), python=python, timeout=timeout or 300.0,
                       stub_missing=stub_missing, env={**command.env, **env})
    return observe_local(result), list(command.argv)


def _commands(file: str | None, argv: tuple[str, ...], kind: str | None, observed: Observed | None,
              probe_argv: Sequence[str] | None) -> list[LaunchCommand]:
    from flagscan.commands.args_cmd import read_commands
    from flagscan.inputs import command_from_argv

    if file or argv:
        return read_commands(file, argv, kind)
    if probe_argv is not None:
        return [command_from_argv(list(probe_argv))]
    if observed is not None and observed.launch_argv:
        return [command_from_argv(list(observed.launch_argv))]
    raise UserError("no launch command: give a FILE (unit, script, compose, k8s manifest) or -- ARGV "
                    "(this server does not report the command it was launched with)")


def _revision_for(observed: Observed, say: Callable[[str], None]) -> str | None:
    """The revision the observed SGLang runs: its own directory (--local), or its version (--url)."""
    local_dir = observed.facts.get("sglang_dir") if observed.facts else None
    if local_dir:
        return str(local_dir)  # the probe's JSON: the directory as a string
    if observed.version:
        say(f"the server runs SGLang {observed.version}; analysing that release")
        return observed.version
    return None


def _profile(gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
             local: bool, observed: Observed) -> GpuProfile:
    if gpu is not None or not local:
        if gpu is None:
            raise UserError("--gpu is required with --url and --log (the GPU the server runs on: a table name "
                            "such as h200, or a capability such as 9.0)")
        return gpu_profile(gpu, gpu_count, gpu_memory, gpu_name, cuda)
    try:
        return gpu_profile("auto", gpu_count, gpu_memory, gpu_name, cuda)
    except UserError:
        seen = (observed.facts or {}).get("gpu") or {}
        if not seen.get("cuda_available") or not seen.get("capability"):
            raise
        from flagscan.hardware import GpuProfile
        from flagscan.hardware.detect import match_table

        cap = tuple(seen["capability"])
        match = match_table(seen.get("name") or "", cap, seen.get("memory_mib"))
        return GpuProfile("nvidia", seen.get("name"), cap, seen.get("memory_mib"),
                          gpu_count or seen.get("device_count") or 1, cuda or seen.get("torch_cuda"),
                          table_entry=match.key, source="detected")


COMMANDS = [verify]
