"""No SGLang knowledge as a string literal in flagscan's code: a literal equal to a flag dest
of a recorded release, or naming an SGLang module (sglang.srt...) or file (sglang/srt/...),
belongs in rules/. Docstrings and the lint rules' own examples are prose and are not scanned."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flagscan"
INVENTORIES = sorted((ROOT / "tests" / "data" / "groundtruth" / "inventory").glob("*.json"))
SGLANG_PATH = re.compile(r"\bsglang[./]srt\b")

# Literals that equal a dest but are flagscan's own vocabulary, each with why.
ALLOWED = {
    "revision": "flagscan's JSON contract (\"sglang\": {\"revision\", ...}) and the `sources fetch REVISION` argument",
    "config": "flagscan's label for a token read from a --config file (argv.Tok origin, a problem's data key) "
              "and git's `config` subcommand",
}


def recorded_dests() -> set[str]:
    dests: set[str] = set()
    for path in INVENTORIES:
        dests.update(a["dest"] for a in json.loads(path.read_text())["actions"] if a.get("dest"))
    return dests


def _prose(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings or lint rule examples."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        examples = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Example"
        examples |= isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("VALID", "INVALID")
                                                         for t in node.targets)
        if examples:
            skip.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Constant))
    return skip


def leaks(source: str, dests: set[str]) -> list[tuple[int, str]]:
    """(line, literal) of every string literal in `source` that is SGLang knowledge."""
    tree = ast.parse(source)
    prose = _prose(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            text = node.value
            if (text in dests and text not in ALLOWED) or SGLANG_PATH.search(text):
                found.append((node.lineno, text))
    return sorted(found)


def test_the_scan_finds_what_it_looks_for() -> None:
    source = '''"""Module doc naming tp_size and sglang.srt.server_args is prose."""
WIDTH = ("tp_size", "pp_size")
ANCHOR = "sglang/srt/server_args.py"
VALID = (Example("--tp-size 2", expect=("tp_size",)),)
def f():
    """tp_size here is prose too."""
    return values.get("model_path"), f"{x}sglang.srt.layers"
'''
    assert [t for _, t in leaks(source, {"tp_size", "pp_size", "model_path"})] == [
        "pp_size", "tp_size", "sglang/srt/server_args.py", "model_path", "sglang.srt.layers"]


def test_no_sglang_literal_in_flagscan() -> None:
    dests = recorded_dests()
    assert len(INVENTORIES) >= 10 and len(dests) > 500
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
             for path in sorted(PACKAGE.rglob("*.py")) for line, text in leaks(path.read_text(), dests)]
    assert not found, "move these to rules/ (or, if flagscan's own word, to ALLOWED with a reason):\n" + "\n".join(found)


def test_the_allow_list_is_short_and_still_needed() -> None:
    dests = recorded_dests()
    assert len(ALLOWED) <= 3 and set(ALLOWED) <= dests
    used = {node.value for path in PACKAGE.rglob("*.py") for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert set(ALLOWED) <= used, "an allowed literal is no longer used: drop it"
