"""cli: `flagscan detect`: the GPUs of this machine as flagscan sees them (NVML)."""

from __future__ import annotations

import click

from flagscan.cli import FORMATS, Exit, UserError, merge_options, run_guarded
from flagscan.commands.common import emit_json
from flagscan.report import detect_text


@click.command("detect")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format.")
@click.pass_context
def detect(ctx: click.Context, fmt: str | None) -> None:
    """Detect this machine's NVIDIA GPUs through NVML (what --gpu auto uses).

    Exits 2 with one line when NVML is unavailable (no driver, no GPU, pynvml missing).
    """
    opts = merge_options(ctx, format=fmt)

    def body() -> int:
        from flagscan.hardware import HardwareError
        from flagscan.hardware.detect import detect as run_detect

        try:
            found = run_detect()
        except HardwareError as exc:
            raise UserError(str(exc)) from exc
        if opts.format == "json":
            emit_json("detect", detect_text.to_json(found))
        else:
            click.echo(detect_text.render(found))
        return Exit.OK

    run_guarded(body)


COMMANDS = [detect]
