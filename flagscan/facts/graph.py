"""facts: the dependency graph of settings, hardware predicates, model facts and environment variables (networkx).

Nodes: ``setting:X``, ``predicate:module.name`` (a module-level name a guard
tests, such as `_is_sm90_supported`), ``env:NAME`` and ``model:attr``.
Edges: ``writes`` (resolution code sets B under a condition or from a value
that reads A: A -> B) and ``gates`` (a guard of a runtime read of X tests the
source node: source -> X).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import networkx as nx

from flagscan.facts import ir
from flagscan.facts.ir import const_str, name_of, simple_name, view
from flagscan.facts.reads import Read, reads_in, transform
from flagscan.ruledata import load


def _atoms(test: Any, local: set[str]) -> list[tuple[str, str]]:
    """(node id, kind) for the non-setting things a guard test depends on (what names an
    environment variable or the model is rules/reads.toml [graph])."""
    out: list[tuple[str, str]] = []
    names = load("reads")["graph"]
    env_calls, env_modules, model_attributes = names["env_calls"], names["env_modules"], names["model_attributes"]

    def visit(n: Any) -> Any:
        k = n[0]
        if k == "read":
            return n
        if k == "call":
            call = view(ir.Call, n)
            name = const_str(call.args[0]) if call.args else None
            if simple_name(call.func) in env_calls and name is not None and name.isupper():
                out.append((f"env:{name}", "env"))
                return n
        if k == "cmp":
            left, comparisons = view(ir.Compare, n)
            if const_str(left) and any(op in ("in", "notin") and _is_environ(r) for op, r in comparisons):
                out.append((f"env:{const_str(left)}", "env"))   # "NAME" in os.environ
                return n
        if k == "sub":
            sub = view(ir.Subscript, n)
            if _is_environ(sub.value) and const_str(sub.item):
                out.append((f"env:{const_str(sub.item)}", "env"))   # os.environ["NAME"]
                return n
        if k == "a":
            a = view(ir.Attr, n)
            if name_of(a.value) in env_modules and a.attr.isupper():
                out.append((f"env:{a.attr}", "env"))
                return n
            if a.attr in model_attributes:
                out.append(("model:config", "model"))
                return n
        if k == "n":
            name = view(ir.Name, n).id
            if name not in local and not name[0].isupper() and name not in _BUILTINS:
                out.append((f"predicate:{name}", "predicate"))
        return None

    transform(test, visit)
    return out


def _is_environ(n: Any) -> bool:
    return isinstance(n, list) and n[:3] == ["a", ["n", "os"], "environ"]


_BUILTINS = {"isinstance", "hasattr", "getattr", "len", "int", "str", "bool", "float", "any", "all", "min", "max",
             "self", "cls", "list", "dict", "set", "tuple", "sum", "type", "print", "range", "sorted", "zip"}


class TreeReadsLike(Protocol):
    """What the graph needs of extract's TreeReads (facts/ does not import extract/)."""

    files: dict[str, Any]
    roles: dict[str, str]


if TYPE_CHECKING:
    Graph = nx.MultiDiGraph[str]  # nodes are "setting:<dest>", "gpu:<fact>", ... strings


def build_graph(tree_reads: TreeReadsLike, dests: set[str]) -> Graph:
    g: Graph = nx.MultiDiGraph()
    frozen = frozenset(dests)

    def setting(dest: str) -> str:
        node = f"setting:{dest}"
        if node not in g:
            g.add_node(node, kind="setting", label=dest)
        return node

    for rel, facts in sorted(tree_reads.files.items()):
        role = tree_reads.roles.get(rel)
        if role == "resolution":
            for w in facts.writes:
                if w.target not in frozen:
                    continue
                for src in w.sources:
                    dest = src.split(".")[-1]
                    if dest in frozen and dest != w.target:
                        g.add_edge(setting(dest), setting(w.target), kind="writes",
                                   location=f"{facts.path}:{w.line}", handler=w.function,
                                   condition=" and ".join(w.guards)[:300])
            continue
        for read in facts.reads:
            dest = read.dest(frozen)
            if dest is None:
                continue
            target = setting(dest)
            for guard in read.guards:
                local = set(facts.scopes.get(guard.scope, []))
                for rnode in reads_in(guard.test):
                    mark = view(ir.Marked, rnode)
                    other = Read(tuple(mark.chain), mark.namespaced, "", "", 0, "", ()).dest(frozen)
                    if other is not None and other != dest:
                        g.add_edge(setting(other), target, kind="gates", location=read.location,
                                   condition=guard.shown[:300])
                for node, kind in _atoms(guard.test, local):
                    if kind == "predicate":
                        node = f"predicate:{facts.module}.{node.split(':', 1)[1]}"
                    if node not in g:
                        g.add_node(node, kind=kind, label=node.split(":", 1)[1])
                    g.add_edge(node, target, kind="gates", location=read.location, condition=guard.shown[:300])
    return g


def focus(g: Graph, dest: str, depth: int) -> Graph:
    node = f"setting:{dest}"
    if node not in g:
        return nx.MultiDiGraph()
    sub: Graph = nx.ego_graph(g, node, radius=depth, undirected=True)
    return sub
