"""report: the dependency graph as dot, graphml, JSON (node-link) or mermaid."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:
    from flagscan.facts.graph import Graph

_SHAPES = {"setting": "box", "predicate": "ellipse", "env": "note", "model": "cylinder"}


def connected(g: Graph, keep_isolated: bool = False) -> Graph:
    """The graph without nodes that have no edge (a setting nothing writes or gates), unless asked."""
    if keep_isolated:
        return g
    return g.subgraph([n for n in g.nodes if g.degree(n) > 0]).copy()


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(g: Graph) -> str:
    lines = ["digraph flagscan {", "  rankdir=LR;"]
    for node, data in sorted(g.nodes.items()):
        lines.append(f"  {_q(node)} [label={_q(data.get('label', node))}, shape={_SHAPES.get(data.get('kind') or '', 'box')}];")
    for a, b, data in sorted(g.edges(data=True), key=lambda e: (e[0], e[1], e[2].get("location", ""))):
        style = "solid" if data.get("kind") == "writes" else "dashed"
        lines.append(f"  {_q(a)} -> {_q(b)} [label={_q(data.get('kind', ''))}, style={style}, "
                     f"tooltip={_q(data.get('location', '') + ' ' + data.get('condition', ''))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_json(g: Graph) -> dict[str, Any]:
    return {"nodes": [{"id": n, **d} for n, d in sorted(g.nodes.items())],
            "edges": [{"source": a, "target": b, **d} for a, b, d in
                      sorted(g.edges(data=True), key=lambda e: (e[0], e[1], e[2].get("location", "")))]}


def to_graphml(g: Graph) -> str:
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue().decode("utf-8")


def to_mermaid(g: Graph) -> str:
    ids = {n: f"n{i}" for i, n in enumerate(sorted(g.nodes))}
    lines = ["flowchart LR"]
    for node, data in sorted(g.nodes.items()):
        label = data.get("label", node).replace('"', "'")
        kind = data.get("kind")
        shape = f'["{label}"]' if kind == "setting" else (f'(["{label}"])' if kind == "predicate" else f'[/"{label}"/]')
        lines.append(f"  {ids[node]}{shape}")
    seen = set()
    for a, b, data in sorted(g.edges(data=True), key=lambda e: (e[0], e[1], e[2].get("kind", ""), e[2].get("location", ""))):
        key = (a, b, data.get("kind"))
        if key in seen:
            continue
        seen.add(key)
        arrow = "-->" if data.get("kind") == "writes" else "-.->"
        lines.append(f"  {ids[a]} {arrow}|{data.get('kind')}| {ids[b]}")
    return "\n".join(lines) + "\n"


def render(g: Graph, fmt: str, keep_isolated: bool = False) -> str:
    g = connected(g, keep_isolated)
    if fmt == "dot":
        return to_dot(g)
    if fmt == "graphml":
        return to_graphml(g)
    if fmt == "mermaid":
        return to_mermaid(g)
    return json.dumps(to_json(g), indent=2) + "\n"
