"""cli: `flagscan graph`: the settings dependency graph (writes and gates), whole or around one setting."""

from __future__ import annotations

import click

from flagscan.cli import Exit, UserError, merge_options, run_guarded
from flagscan.commands.report_cmd import check_flag, gate_source_options, load_tree_reads

GRAPH_FORMATS = ("json", "dot", "graphml", "mermaid")


@click.command("graph")
@gate_source_options(GRAPH_FORMATS)
@click.option("--focus", default=None, metavar="SETTING", help="Only the neighbourhood of this setting.")
@click.option("--depth", type=click.IntRange(0, 10), default=1, help="Neighbourhood radius with --focus.")
@click.option("--all", "show_all", is_flag=True, help="Keep settings with no edge (isolated nodes).")
@click.pass_context
def graph(ctx: click.Context, sglang: str | None, cache_dir: str | None, offline: bool, fmt: str | None,
          focus: str | None, depth: int, show_all: bool) -> None:
    """The dependency graph: settings, hardware predicates, env vars and model facts, with writes/gates edges."""
    from pathlib import Path

    opts = merge_options(ctx, sglang=sglang, cache_dir=Path(cache_dir) if cache_dir else None, offline=offline)
    asked = _group_format(ctx) if fmt is None else None
    fmt = fmt or (asked if asked in GRAPH_FORMATS else "json")

    def body() -> int:
        if asked is not None and asked not in GRAPH_FORMATS:
            raise UserError(f"graph has no {asked} format; it prints {', '.join(GRAPH_FORMATS)} (--format)")
        from flagscan.commands.common import emit_json, open_revision
        from flagscan.facts import graph as graph_facts
        from flagscan.report import gates_graph

        rev = open_revision(opts)
        reads = load_tree_reads(rev, opts.quiet)
        dests = {f.dest for f in rev.inventory.flags}
        g = graph_facts.build_graph(reads, dests)
        if focus:
            g = graph_facts.focus(g, check_flag(rev, focus), depth)
        if fmt == "json":
            emit_json("graph", gates_graph.to_json(gates_graph.connected(g, show_all)), rev)
        else:
            click.echo(gates_graph.render(g, fmt, show_all), nl=False)
        return Exit.OK

    run_guarded(body)


def _group_format(ctx: click.Context) -> str | None:
    """The group's --format when the user gave it (its default, text, is no request for text)."""
    from click.core import ParameterSource

    root = ctx.find_root()
    if root.get_parameter_source("fmt") in (None, ParameterSource.DEFAULT):
        return None
    return ctx.obj.format if ctx.obj else None


COMMANDS = [graph]
