"""cli: `flagscan flags`: the exact flag inventory of one SGLang revision."""

from __future__ import annotations

from pathlib import Path

import click

from flagscan.cli import Exit, merge_options, run_guarded, source_options
from flagscan.commands.common import emit_json, open_revision
from flagscan.report import flags_text


@click.command("flags")
@source_options
@click.option("--deprecated", "only_deprecated", is_flag=True, help="Only deprecated flags.")
@click.pass_context
def flags(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None,
          only_deprecated: bool) -> None:
    """List every flag of `sglang serve` in the pinned revision, read from its source."""
    opts = merge_options(ctx, sglang=sglang, cache_dir=cache_dir, offline=offline, format=fmt)

    def body() -> int:
        rev = open_revision(opts)
        selected = [f for f in rev.inventory.flags if f.deprecated or not only_deprecated]
        if opts.format == "json":
            emit_json("flags", {
                "allow_abbrev": rev.inventory.allow_abbrev,
                "flags": [f.to_json() for f in selected],
                "notes": list(rev.inventory.notes),
            }, rev)
        else:
            click.echo(flags_text.render(selected, rev.inventory, rev.sglang_json()))
        return Exit.OK

    run_guarded(body)


COMMANDS = [flags]
