"""The pipeline's import contract: each package imports only the stages below it.

source -> extract -> facts -> evaluate -> report, with inputs beside extract, lint/diffing/
verify on top of evaluate, commands on top of those and cli on top of everything. `facts/`
does no I/O; only `extract/` uses libcst; no package imports another's private names. Inside
`evaluate/` the interpreter (`interp/`) is the bottom and the analyses stack on it. No two
flagscan modules import each other, directly or round a longer cycle.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "flagscan"
LEAVES = {"diagnostics", "strict", "ruledata", "rules", "progress", "pybuiltins"}
# package -> the flagscan packages it may import (besides itself and the leaves)
ALLOWED: dict[str, set[str]] = {
    "facts": set(),
    "hardware": set(),
    "source": set(),
    "extract": {"source", "facts"},
    "inputs": {"facts"},
    "evaluate": {"source", "extract", "facts", "hardware"},
    "report": {"evaluate", "facts", "hardware"},
    "verify": {"evaluate", "facts", "hardware", "source", "extract", "inputs"},
    "lint": {"evaluate", "extract", "facts", "inputs", "hardware", "report", "source"},
    "diffing": {"extract", "facts", "lint", "evaluate", "inputs", "hardware", "source"},
    "commands": {"cli", "config", "source", "extract", "facts", "evaluate", "inputs", "hardware", "report",
                 "lint", "diffing", "verify"},
}
IO_MODULES = {"os", "pathlib", "shutil", "subprocess", "socket", "tempfile", "io"}
# evaluate/'s parts, lowest first: each imports only its own rank and those below. The shared
# modules at the top of evaluate/ (world, model_types, packages, cachekey, the package's own
# entry points) rank with the resolution, which they and it both use.
EVALUATE_RANKS = {"interp": 0, "resolution": 1, "gates": 2, "startup": 3}


def _modules() -> list[tuple[str, Path, ast.Module]]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        package = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        out.append((package, path, ast.parse(path.read_text())))
    return out


def _imports(tree: ast.Module) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
    return found


def test_each_package_imports_only_the_stages_below_it() -> None:
    wrong = []
    for package, path, tree in _modules():
        if package not in ALLOWED:
            continue
        for module, _names in _imports(tree):
            parts = module.split(".")
            if parts[0] != "flagscan" or len(parts) < 2:
                continue
            target = parts[1]
            if target != package and target not in LEAVES and target not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(ROOT.parent)} imports {module}")
    assert not wrong, wrong


def test_only_extract_uses_libcst() -> None:
    users = [str(p.relative_to(ROOT.parent)) for package, p, tree in _modules()
             if package != "extract" and any(m.split(".")[0] == "libcst" for m, _ in _imports(tree))]
    assert not users, users


def test_facts_does_no_io() -> None:
    wrong = []
    for package, path, tree in _modules():
        if package != "facts":
            continue
        for module, _ in _imports(tree):
            if module.split(".")[0] in IO_MODULES:
                wrong.append(f"{path.name} imports {module}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
                wrong.append(f"{path.name}:{node.lineno} calls open()")
    assert not wrong, wrong


def test_no_package_imports_another_packages_private_names() -> None:
    wrong = []
    for package, path, tree in _modules():
        for module, names in _imports(tree):
            parts = module.split(".")
            if parts[0] == "flagscan" and len(parts) > 1 and parts[1] != package:
                wrong.extend(f"{path.relative_to(ROOT.parent)}: {module}.{n}" for n in names
                             if n.startswith("_") and not n.startswith("__"))
    assert not wrong, wrong


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.Module) -> list[tuple[str, str]]:
    """(module, name) of every import that runs: at module level or inside a function (a
    function-level import runs on the first call and closes a cycle as well); not those under
    `if TYPE_CHECKING:`, which never run. `name` is "" for `import module`."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            if isinstance(child, ast.Import):
                found.extend((a.name, "") for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.extend((child.module, a.name) for a in child.names)
            visit(child)

    visit(tree)
    return found


def import_graph(sources: dict[str, str]) -> nx.DiGraph:
    """module -> the flagscan modules it imports, from {module name: source}. `from P import M`
    of a submodule M is an edge to P.M; an import of P.M's parent package that Python makes on
    the way (P's `__init__`) is not an edge: a package's own modules import it by design."""
    graph = nx.DiGraph()
    graph.add_nodes_from(sources)
    for module, source in sources.items():
        for target, name in _runtime_imports(ast.parse(source)):
            if f"{target}.{name}" in sources:
                target = f"{target}.{name}"
            while target and target not in sources:
                target = target.rpartition(".")[0]
            if target and target != module:
                graph.add_edge(module, target)
    return graph


def import_cycles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_the_cycle_check_finds_a_cycle_through_a_function_level_import() -> None:
    sources = {
        "flagscan.a": "from flagscan.b import f\n",
        "flagscan.b": "def f():\n    from flagscan.a import g\n",
        "flagscan.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from flagscan.d import D\n",
        "flagscan.d": "from flagscan import c\n",
        "flagscan.p": "def load():\n    from flagscan.p.m import x\n",
        "flagscan.p.m": "from flagscan.p.n import y\n",
        "flagscan.p.n": "",
    }
    graph = import_graph(sources)
    assert graph.has_edge("flagscan.d", "flagscan.c") and not graph.has_edge("flagscan.c", "flagscan.d")
    assert import_cycles(graph) == [["flagscan.a", "flagscan.b"]]


@cache
def _flagscan_graph() -> nx.DiGraph:
    return import_graph({_module_name(path): path.read_text() for path in sorted(ROOT.rglob("*.py"))})


def test_no_import_cycle_among_flagscan_modules() -> None:
    graph = _flagscan_graph()
    assert graph.number_of_edges() > 300
    assert not import_cycles(graph), import_cycles(graph)


def _evaluate_rank(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["flagscan", "evaluate"]:
        return None
    return EVALUATE_RANKS.get(parts[2], EVALUATE_RANKS["resolution"]) if len(parts) > 2 else EVALUATE_RANKS["resolution"]


def test_the_interpreter_is_the_bottom_of_evaluate_and_the_analyses_stack_on_it() -> None:
    graph = _flagscan_graph()
    wrong = []
    for module, target in sorted(graph.edges):
        low, high = _evaluate_rank(module), _evaluate_rank(target)
        if low is not None and high is not None and high > low:
            wrong.append(f"{module} imports {target}")
    assert not wrong, wrong
