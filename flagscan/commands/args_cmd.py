"""cli: `flagscan args (FILE | -- ARGV)`: launch commands -> argv -> flag values."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from flagscan.cli import Exit, LaunchArgs, UserError, merge_options, run_guarded, source_options
from flagscan.commands.common import emit_json, open_revision
from flagscan.report import args_text

if TYPE_CHECKING:
    from flagscan.inputs import LaunchCommand
    from flagscan.inputs.model import Source


def read_commands(file: str | None, argv: tuple[str, ...], kind: str | None = None) -> list[LaunchCommand]:
    """Launch commands from FILE (`-`: stdin) or from the argv given after `--` (one of them)."""
    from flagscan.inputs import command_from_argv, read_launch_file

    if file and argv:
        raise UserError("give a launch file or a command after --, not both")
    if file == "-":
        return read_stdin_commands(kind)
    if file:
        return read_launch_file(file, kind=kind)
    if argv:
        return [command_from_argv(list(argv))]
    raise UserError("no launch command: give a FILE (unit, script, compose, k8s manifest) or -- ARGV")


STDIN = "<stdin>"


def stdin_source() -> Source:
    """The launch file given on stdin (`-`), refused as a file would be (binary, too large)."""
    from flagscan.inputs.model import MAX_BYTES, InputError, Source
    from flagscan.inputs.text import decode

    data = sys.stdin.buffer.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise InputError(f"{STDIN}: too large (the limit is {MAX_BYTES} bytes)")
    return Source.of(STDIN, decode(data, STDIN))


def read_stdin_commands(kind: str | None = None) -> list[LaunchCommand]:
    from flagscan.inputs.read import read_launch_source

    return read_launch_source(stdin_source(), kind)


@click.command("args", cls=LaunchArgs)
@source_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None,
              help="Kind of launch file (detected when omitted).")
@click.argument("file", required=False)
@click.pass_context
def args(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None,
         kind: str | None, file: str | None, argv: tuple[str, ...]) -> None:
    """Show the flag values a launch command gives SGLang, parsed as SGLang's parser would."""
    opts = merge_options(ctx, sglang=sglang, cache_dir=cache_dir, offline=offline, format=fmt)

    def body() -> int:
        from flagscan.inputs import parse_command
        from flagscan.lint.findings import checked

        commands = read_commands(file, argv, kind)
        rev = open_revision(opts)
        parsed = [checked(parse_command(c, rev.inventory)) for c in commands]
        if opts.format == "json":
            emit_json("args", {"commands": [args_text.command_json(p) for p in parsed]}, rev)
        else:
            click.echo(args_text.render(parsed))
        worst = max((d.severity.rank for p in parsed for d in p.diagnostics), default=0)
        return Exit.FINDINGS if worst >= 3 else Exit.OK

    run_guarded(body)


COMMANDS = [args]
