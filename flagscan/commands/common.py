"""cli: what every subcommand shares: opening a revision and emitting a payload."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flagscan.cli import Options, progress
from flagscan.facts.flags import Inventory

if TYPE_CHECKING:
    from flagscan.source.model import SourceTree


@dataclass(frozen=True, slots=True)
class Revision:
    tree: SourceTree
    inventory: Inventory
    pin_how: str
    cache_dir: Path

    def sglang_json(self) -> dict[str, Any]:
        return self.tree.to_json()


def open_revision(opts: Options, spec: str | None = None, reads: bool = False) -> Revision:
    """Pin -> source tree -> flag inventory (cached). `reads`: the run will need the tree's read
    facts (flagscan.extract.reads.want_reads: begun in the background once the run is cold)."""
    from flagscan.extract import load_inventory
    from flagscan.source import default_cache_dir, get_source, resolve_pin

    say = progress(opts)
    cache_dir = opts.cache_dir or default_cache_dir()
    spec = spec or opts.sglang
    if spec:
        how = "--sglang"
    else:
        spec, how = resolve_pin(Path.cwd(), cache_dir=cache_dir, offline=opts.offline)
    tree = get_source(spec, cache_dir=cache_dir, offline=opts.offline, git_url=opts.sglang_repo,
                      progress=say)
    say(f"sglang {tree.version or spec} ({how}; {tree.served_by})")
    from flagscan.progress import activity

    if reads:
        from flagscan.extract.reads import want_reads

        want_reads(tree.root, cache_dir)
    with activity(f"flagscan: reading sglang {tree.version or spec}'s flags"):
        inventory, _hit = load_inventory(tree.root, cache_dir)
    return Revision(tree, inventory, how, cache_dir)


def emit_json(kind: str, payload: dict[str, Any], revision: Revision | None = None) -> None:
    doc: dict[str, Any] = {"schema": f"flagscan/{kind}/v1"}
    if revision is not None:
        doc["sglang"] = revision.sglang_json()
    doc.update(payload)
    click.echo(json.dumps(doc, indent=2, default=str))


def begin_startup_cold(rev: Revision, values: dict[str, Any], scenario: Any) -> None:
    """A cold run: SGLang's resolution entry is run once for both phases (predict.begin_startup).
    Whatever stops it stops the resolution and the startup phase when each is computed alone,
    which then says so: nothing is lost by going on."""
    from flagscan.evaluate.startup.predict import begin_startup

    try:
        begin_startup(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
    except Exception:  # computed again by the caller, where what stopped it is reported
        pass
