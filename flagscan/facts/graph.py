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

from flagscan.facts.ir import is_kind
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
            func = n[1]
            tail = func[2] if func[0] == "a" else (func[1] if func[0] == "n" else "")
            if tail in env_calls and n[2] and isinstance(n[2][0], list) and n[2][0][0] == "c" \
                    and isinstance(n[2][0][1], str) and n[2][0][1].isupper():
                out.append((f"env:{n[2][0][1]}", "env"))
                return n
        if k == "cmp" and _const_str(n[1]) and any(op in ("in", "notin") and _is_environ(r) for op, r in n[2]):
            out.append((f"env:{n[1][1]}", "env"))   # "NAME" in os.environ
            return n
        if k == "sub" and _is_environ(n[1]) and _const_str(n[2]):
            out.append((f"env:{n[2][1]}", "env"))   # os.environ["NAME"]
            return n
        if k == "a" and is_kind(n[1], "n") and n[1][1] in env_modules and n[2].isupper():
            out.append((f"env:{n[2]}", "env"))
            return n
        if k == "a" and n[2] in model_attributes:
            out.append(("model:config", "model"))
            return n
        if k == "n" and n[1] not in local and not n[1][0].isupper() and n[1] not in _BUILTINS:
            out.append((f"predicate:{n[1]}", "predicate"))
        return None

    transform(test, visit)
    return out


def _const_str(n: Any) -> bool:
    return isinstance(n, list) and len(n) > 1 and n[0] == "c" and isinstance(n[1], str)


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
                    other = Read(tuple(rnode[1]), rnode[2], "", "", 0, "", ()).dest(frozen)
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
