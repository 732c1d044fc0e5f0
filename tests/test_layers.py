"""The pipeline's import contract: each package imports only the stages below it.

source -> extract -> facts -> evaluate -> report, with inputs beside extract, lint/diffing/
verify on top of evaluate, commands on top of those and cli on top of everything. `facts/`
does no I/O; only `extract/` uses libcst; no package imports another's private names.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "flagscan"
LEAVES = {"diagnostics", "strict", "ruledata", "rules", "progress"}
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
