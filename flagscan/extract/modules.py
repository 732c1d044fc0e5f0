"""extract: an index of the modules of one SGLang tree, parsed lazily with libcst."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from flagscan.extract.irstore import module_file
from flagscan.extract.names import absolute_module


class ParseFailure(Exception):
    """A module that libcst cannot parse; analysis skips it and says so."""


@dataclass(slots=True)
class ModuleInfo:
    """One parsed module and its top-level symbol table.

    `assigns` keeps every top-level binding of a name in source order (the last
    one wins for constant evaluation, as at import time). `imports` maps a local
    name to ``(module, attribute)``; attribute is None for ``import x.y as z``.
    """

    name: str
    relpath: str
    tree: cst.Module
    # libcst's positions of the module's nodes, computed at the first `line()` (most modules the
    # inventory parses are read for constants only, and positions are most of what a parse costs)
    wrapper: MetadataWrapper
    assigns: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    augments: dict[str, list[cst.CSTNode]] = field(default_factory=dict)
    # Module-level `if` tests enclosing a binding (node -> tests, outermost first).
    guards: dict[cst.CSTNode, tuple[cst.BaseExpression, ...]] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    _positions: Mapping[cst.CSTNode, CodeRange] | None = None

    def line(self, node: cst.CSTNode) -> int:
        if self._positions is None:
            self._positions = self.wrapper.resolve(PositionProvider)
        pos = self._positions.get(node)
        return pos.start.line if pos is not None else 0

    def code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)

    @property
    def package(self) -> str:
        if self.relpath.endswith("__init__.py"):
            return self.name
        return self.name.rpartition(".")[0]


def _dotted(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""



def _index_statements(info: ModuleInfo, body: list[cst.CSTNode],
                      guards: tuple[cst.BaseExpression, ...] = ()) -> None:
    """Record top-level bindings, descending into `if`/`try` blocks (import-time code)."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _index_small(info, small)
                if guards:
                    for node in _bound_nodes(small):
                        info.guards[node] = guards
        elif isinstance(stmt, cst.ClassDef):
            info.classes[stmt.name.value] = stmt
        elif isinstance(stmt, cst.FunctionDef):
            info.functions.setdefault(stmt.name.value, stmt)
        elif isinstance(stmt, cst.If):
            _index_statements(info, list(stmt.body.body), guards + (stmt.test,))
            negated = guards + (cst.UnaryOperation(cst.Not(), stmt.test),)
            orelse = stmt.orelse
            while orelse is not None:
                test = getattr(orelse, "test", None)
                inner = negated + ((test,) if test is not None else ())
                _index_statements(info, list(orelse.body.body), inner)
                if test is not None:
                    negated = negated + (cst.UnaryOperation(cst.Not(), test),)
                orelse = getattr(orelse, "orelse", None)
        elif isinstance(stmt, cst.Try):
            _index_statements(info, list(stmt.body.body), guards)


def _bound_nodes(small: cst.BaseSmallStatement) -> list[cst.CSTNode]:
    """The nodes _index_small records for a statement (values and augment nodes)."""
    if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
        return [small.value]
    if isinstance(small, cst.AugAssign):
        return [small]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return [small.value]
    return []


def _index_small(info: ModuleInfo, small: cst.BaseSmallStatement) -> None:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                info.assigns.setdefault(target.target.value, []).append(small.value)
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        if isinstance(small.target, cst.Name):
            info.assigns.setdefault(small.target.value, []).append(small.value)
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        info.augments.setdefault(small.target.value, []).append(small)
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.attr.value in ("append", "extend", "add", "update"):
                info.augments.setdefault(func.value.value, []).append(small.value)
    elif isinstance(small, cst.ImportFrom):
        if isinstance(small.names, cst.ImportStar):
            return
        level = len(small.relative)
        module = absolute_module(_dotted(small.module), info.package, level)
        for alias in small.names:
            local = _dotted(alias.asname.name) if alias.asname else _dotted(alias.name)
            info.imports[local] = (module, _dotted(alias.name))
    elif isinstance(small, cst.Import):
        for alias in small.names:
            full = _dotted(alias.name)
            if alias.asname:
                info.imports[_dotted(alias.asname.name)] = (full, None)
            else:
                head = full.split(".")[0]
                info.imports[head] = (head, None)


class SourceIndex:
    """Lazily parsed modules of the tree whose root contains the `sglang` package."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._modules: dict[str, ModuleInfo | None] = {}
        self.failures: dict[str, str] = {}

    def module_file(self, dotted: str) -> Path | None:
        return module_file(self.root, dotted)   # a package beside sglang/ (site-packages) is outside the tree

    def module(self, dotted: str) -> ModuleInfo | None:
        if dotted in self._modules:
            return self._modules[dotted]
        path = self.module_file(dotted)
        info = None
        if path is not None:
            try:
                info = self._parse(dotted, path)
            except ParseFailure as exc:
                self.failures[dotted] = str(exc)
        self._modules[dotted] = info
        return info

    def _parse(self, dotted: str, path: Path) -> ModuleInfo:
        try:
            text = path.read_text(encoding="utf-8")
            tree = cst.parse_module(text)
        except (UnicodeDecodeError, cst.ParserSyntaxError, OSError) as exc:
            raise ParseFailure(f"{path}: {type(exc).__name__}") from exc
        relpath = path.relative_to(self.root).as_posix()
        info = ModuleInfo(dotted, relpath, tree, MetadataWrapper(tree, unsafe_skip_copy=True))
        _index_statements(info, list(tree.body))
        return info

    def parsed_files(self) -> dict[str, str]:
        """relpath -> module name of every module parsed so far."""
        return {m.relpath: n for n, m in self._modules.items() if m is not None}
