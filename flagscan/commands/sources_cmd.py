"""cli: `flagscan sources list|fetch|clear`: the SGLang source cache."""

from __future__ import annotations

from pathlib import Path

import click

from flagscan.cli import Exit, merge_options, progress, run_guarded, source_options
from flagscan.commands.common import emit_json


@click.group("sources")
def sources() -> None:
    """Manage cached SGLang source trees."""


@sources.command("list")
@source_options
@click.pass_context
def list_cmd(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None) -> None:
    """List cached revisions."""
    opts = merge_options(ctx, cache_dir=cache_dir, format=fmt)

    def body() -> int:
        from flagscan.source import list_cached

        entries = list_cached(opts.cache_dir)
        if opts.format == "json":
            emit_json("sources", {"sources": entries})
        else:
            for e in entries:
                click.echo("  ".join(str(e.get(k, "")) for k in ("provider", "key", "version", "digest")))
            if not entries:
                click.echo("no cached SGLang trees")
        return Exit.OK

    run_guarded(body)


@sources.command("fetch")
@click.argument("revision")
@source_options
@click.pass_context
def fetch_cmd(ctx: click.Context, revision: str, sglang: str | None, cache_dir: Path | None, offline: bool,
              fmt: str | None) -> None:
    """Fetch REVISION into the cache (and extract its flag inventory)."""
    opts = merge_options(ctx, cache_dir=cache_dir, offline=offline, format=fmt)

    def body() -> int:
        from flagscan.commands.common import open_revision

        rev = open_revision(opts, revision)
        if opts.format == "json":
            emit_json("sources", {"fetched": rev.sglang_json(), "flags": len(rev.inventory.flags)}, rev)
        else:
            click.echo(f"{rev.tree.version or revision}: {rev.tree.served_by}; {len(rev.inventory.flags)} flags")
        return Exit.OK

    run_guarded(body)


@sources.command("clear")
@source_options
@click.pass_context
def clear_cmd(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, fmt: str | None) -> None:
    """Remove every cached tree and fact record."""
    opts = merge_options(ctx, cache_dir=cache_dir, format=fmt)

    def body() -> int:
        from flagscan.extract.cache import clear_facts
        from flagscan.source import clear_cache, default_cache_dir

        removed = clear_cache(opts.cache_dir) + clear_facts(opts.cache_dir or default_cache_dir())
        progress(opts)(f"removed {removed} cached entries")
        if opts.format == "json":
            emit_json("sources", {"removed": removed})
        return Exit.OK

    run_guarded(body)


COMMANDS = [sources]
