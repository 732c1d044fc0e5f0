"""evaluate: which modules run the tree's code when they are imported.

`from X import Y` is followed lazily: X's body runs when Y is first used, not at the
import, which spares the bodies of the many modules whose names are never used. Python
runs X at the import, and some modules do something there: SGLang's decorator registries
(`@register_fused_func("none", "flashinfer_trtllm")` puts the function in
FusedOpPool._fused_funcs when moe_runner/flashinfer_trtllm.py is imported; the runner
looks it up later by name and raises when it finds none). A lazy import of such a module
would leave the registry empty, and a lookup that succeeds in SGLang would fail here.

A module runs tree code at import when its top level (also inside a top-level `if`,
`try`, `with` or loop) applies a decorator, or calls a function, whose name comes from the
tree (an import of a module of the tree, or a function or class the module defines
itself). Such a module is imported at once, as Python does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.extract.reads_walk import nested_blocks
from flagscan.facts import ir
from flagscan.facts.ir import is_kind, view

if TYPE_CHECKING:
    from flagscan.extract.irstore import ModuleStore


def _root(node: Any) -> str | None:
    """The first name of a name or attribute chain (`FusedOpPool.register` -> FusedOpPool)."""
    while is_kind(node, "a"):
        node = node[1]
    return ir.name_of(node)


def _top(body: list[Any]) -> list[Any]:
    """The module's top-level statements, with those of the blocks nested in them (not in defs)."""
    out: list[Any] = []
    for stmt in body:
        out.append(stmt)
        for block in nested_blocks(stmt):
            out += _top(block)
    return out


def runs_tree_code(store: ModuleStore, name: str, module_ir: dict[str, Any]) -> bool:
    """Whether importing the module `name` (lowered: `module_ir`) runs code of the tree."""
    top = _top(module_ir.get("body", []))
    tree_names: set[str] = set()
    package = name.rpartition(".")[0]
    for stmt in top:
        kind = stmt[0]
        if kind == "import":
            for local, mod, attr in view(ir.Import, stmt).names:
                if mod.startswith("."):
                    mod = package  # a relative import: of this package
                if store.module_file(mod) is not None or (attr and store.module_file(f"{mod}.{attr}") is not None):
                    tree_names.add(local)
        elif kind == "def":
            tree_names.add(view(ir.Def, stmt).func.get("name", ""))
        elif kind == "class":
            tree_names.add(view(ir.ClassDef, stmt).cls.get("name", ""))
    for stmt in top:
        kind = stmt[0]
        decorators: list[Any] = []
        if kind == "def":
            decorators = view(ir.Def, stmt).func.get("decorators", [])
        elif kind == "class":
            decorators = view(ir.ClassDef, stmt).cls.get("decorators", [])
        elif kind == "expr":
            value = view(ir.ExprStmt, stmt).value
            if is_kind(value, "call") and _root(view(ir.Call, value).func) in tree_names:
                return True
        for d in decorators:
            # `@register(...)` and `@register` both run the tree's code at import
            if _root(view(ir.Call, d).func if is_kind(d, "call") else d) in tree_names:
                return True
    return False
