"""extract: the guarded writes and rejections of a revision's argument resolution (Effect facts).

Walks the lowered IR (flagscan.extract.irstore) of the functions rules/effects.toml
names: the record's entry methods and the methods they call on `self` (monolithic
layout), and every top-level function of the hook modules (hook layout). Each write
(`self.x = v`, `server_args.x = v`, `declare_resolution(server_args, src, x=v)`) and
each rejection (`raise`, `assert`) is recorded with its enclosing conditions, the
negation of earlier guarded `return`s, and its location.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.facts.effects import Effect, canon, conjuncts, message_text, negate
from flagscan.facts.ir import is_kind
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.extract.irstore import ModuleStore


@dataclass
class _Walk:
    path: str
    handler: str
    receivers: frozenset[str]
    record: frozenset[str]           # names that are the record itself (writes through them count)
    rules: dict[str, Any]
    out: list[Effect] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)   # self.method() calls seen
    strings: dict[str, Any] = field(default_factory=dict)   # local names bound to message text

    guard: list[str] = field(default_factory=list)   # the key's atoms for the statement being walked

    def emit(self, kind: str, target: str, conds: list[str], value: str, line: int,
             extra: list[str] | None = None) -> None:
        guard = tuple(sorted(set(self.guard + (extra or []))))
        self.out.append(Effect(kind, target, tuple(sorted(set(conds))), value, f"{self.path}:{line}", self.handler,
                               guard))

    def _branch(self, body: list[Any], conds: list[str], guard: list[str]) -> str | None:
        saved = self.guard
        self.guard = guard
        try:
            return self.block(body, conds)
        finally:
            self.guard = saved

    # -- statements ---------------------------------------------------------------------
    def block(self, body: list[Any], conds: list[str]) -> str | None:
        """Walk statements; "return" or "raise" when the block always leaves that way, else None.
        `conds` is every atom that holds here; `self.guard` the atoms that identify a rule."""
        conds = list(conds)
        for stmt in body:
            if not isinstance(stmt, list) or not stmt:
                continue
            kind = stmt[0]
            if kind == "assign":
                self._views(stmt)
                for target in stmt[2]:
                    self._write(target, stmt[3], conds, stmt[1])
                self._expr(stmt[3], conds, stmt[1])
            elif kind == "aug":
                self._write(stmt[2], ["bin", stmt[3], stmt[2], stmt[4]], conds, stmt[1])
            elif kind == "expr":
                self._expr(stmt[2], conds, stmt[1])
            elif kind == "if":
                test, negated = conjuncts(stmt[2], self.receivers), negate(stmt[2], self.receivers)
                then_leaves = self._branch(stmt[3], conds + test, self.guard + test)
                elif_chain = len(stmt[4]) == 1 and is_kind(stmt[4][0], "if")
                else_leaves = self._branch(stmt[4], conds + negated,
                                           self.guard if elif_chain else self.guard + negated) if stmt[4] else None
                if then_leaves and not stmt[4]:
                    conds = conds + negated   # an early exit guards what follows...
                    if then_leaves == "return":
                        # ...and an early return also decides which rules apply; an earlier
                        # rejection does not make the checks after it other rules.
                        self.guard = self.guard + negated
                if then_leaves and else_leaves:
                    return "return" if "return" in (then_leaves, else_leaves) else "raise"
            elif kind == "for":
                loop = [f"for {canon(stmt[2], self.receivers)} in {canon(stmt[3], self.receivers)}"]
                self._branch(stmt[4], conds + loop, self.guard + loop)
                self.block(stmt[5], conds)
            elif kind == "while":
                loop = [f"while {canon(stmt[2], self.receivers)}"]
                self._branch(stmt[3], conds + loop, self.guard + loop)
            elif kind == "with":
                left = self.block(stmt[3], conds)
                if left:
                    return left
            elif kind == "try":
                self.block(stmt[2], conds)
                for handler in stmt[3]:
                    caught = [f"except {canon(handler[0], self.receivers) if handler[0] is not None else 'Exception'}"]
                    self._branch(handler[2], conds + caught, self.guard + caught)
                self.block(stmt[4], conds)
                self.block(stmt[5], conds)
            elif kind == "raise":
                self._raise(stmt[2], conds, stmt[1])
                return "raise"
            elif kind == "assert":
                message = message_text(stmt[3], self.receivers) if stmt[3] is not None else canon(stmt[2], self.receivers)
                failed = negate(stmt[2], self.receivers)
                self.emit("reject", "", conds + failed, message, stmt[1], failed)
            elif kind == "ret":
                return "return"
        return None

    def _views(self, stmt: list[Any]) -> None:
        value = stmt[3]
        names = {t[1] for t in stmt[2] if is_kind(t, "n")}
        if is_kind(value, "call"):
            func = value[1]
            views = self.rules["views"]["functions"]
            plain = is_kind(func, "n") and func[1] in views
            method = is_kind(func, "a") and is_kind(func[1], "n") and func[1][1] in self.record and func[2] in views
            if plain or method:
                self.receivers = self.receivers | names
        if len(names) == 1 and _is_text(value):
            self.strings[next(iter(names))] = value   # `msg = "..."; raise ValueError(msg)`

    def _write(self, target: Any, value: Any, conds: list[str], line: int) -> None:
        if is_kind(target, "a") and is_kind(target[1], "n") and target[1][1] in self.record \
                and not target[2].startswith("_"):
            self.emit("write", target[2], conds, canon(value, self.receivers), line)

    def _expr(self, node: Any, conds: list[str], line: int) -> None:
        if not is_kind(node, "call"):
            return
        func = node[1]
        name = func[1] if is_kind(func, "n") else func[2] if is_kind(func, "a") else None
        writers = self.rules["writers"]
        if name in writers:
            index = writers[name]
            record: Any = node[2][index] if len(node[2]) > index else None
            if is_kind(record, "n") and record[1] in self.record:
                for key, value in node[3]:
                    if key != "**" and not key.startswith("_"):
                        self.emit("write", key, conds, canon(value, self.receivers), line)
        if is_kind(func, "a") and is_kind(func[1], "n") and func[1][1] in self.record:
            self.calls.add(func[2])
        if name == "setattr" and len(node[2]) >= 3 and is_kind(node[2][0], "n") and node[2][0][1] in self.record \
                and is_kind(node[2][1], "c") and isinstance(node[2][1][1], str):
            self.emit("write", node[2][1][1], conds, canon(node[2][2], self.receivers), line)

    def _raise(self, exc: Any, conds: list[str], line: int) -> None:
        if exc is None:
            return  # a bare re-raise: the original rejection is recorded where it is raised
        kind = exc[1] if is_kind(exc, "call") else exc
        name = canon(kind, frozenset())
        if name.rsplit(".", 1)[-1] in self.rules["rejections"]["ignore_exceptions"]:
            return
        first: Any = exc[2][0] if is_kind(exc, "call") and exc[2] else None
        if is_kind(first, "n") and first[1] in self.strings:
            first = self.strings[first[1]]
        message = message_text(first, self.receivers) if first is not None else name
        self.emit("reject", "", conds, message, line)


def _is_text(node: Any) -> bool:
    if is_kind(node, "c"):
        return isinstance(node[1], str)
    if is_kind(node, "bin") and node[1] == "+":
        return _is_text(node[2]) and _is_text(node[3])
    return is_kind(node, "fstr")


def _functions(body: list[Any]) -> Iterator[dict[str, Any]]:
    for stmt in body:
        if is_kind(stmt, "def"):
            yield stmt[2]


def _class(module: dict[str, Any], name: str) -> dict[str, Any] | None:
    for stmt in module["body"]:
        if is_kind(stmt, "class") and stmt[2]["name"] == name:
            cls: dict[str, Any] = stmt[2]
            return cls
    return None


def _receiver(fn: dict[str, Any]) -> frozenset[str]:
    """The name of a function's first positional parameter: the record, for a method of
    the record (its `self`) and for a hook (`def hook(server_args)`); empty without one
    and for a static or class method."""
    if any(is_kind(d, "n") and d[1] in ("staticmethod", "classmethod") for d in fn.get("decorators", [])):
        return frozenset()   # Python binds no instance to these
    params = [p[0] for p in fn["params"] if p[2] == "pos"]
    return frozenset(params[:1])


def _record_effects(store: ModuleStore, rules: dict[str, Any]) -> list[Effect]:
    spec = rules["record"]
    module = store.get(spec["module"])
    if not module:
        return []
    cls = _class(module, spec["class"])
    if cls is None:
        return []
    methods = {fn["name"]: fn for fn in _functions(cls["body"])}
    todo = [m for m in spec["entry_methods"] if m in methods]
    done: set[str] = set()
    out: list[Effect] = []
    while todo:
        name = todo.pop(0)
        if name in done:
            continue
        done.add(name)
        receiver = _receiver(methods[name])
        walk = _Walk(module["path"], name, receiver, receiver, rules)
        walk.block(methods[name]["body"], [])
        out.extend(walk.out)
        todo.extend(sorted(c for c in walk.calls if c in methods and c not in done))
    return out


def _hook_effects(store: ModuleStore, root: Path, rules: dict[str, Any]) -> list[Effect]:
    out: list[Effect] = []
    package = root / "sglang"
    if not package.is_dir():
        return out
    files = sorted(p.relative_to(root).as_posix() for p in package.rglob("*.py"))
    for rel in files:
        if not any(fnmatch.fnmatch(rel, g) for g in rules["hooks"]["globs"]):
            continue
        module = store.get(rel[:-3].replace("/", "."))
        if module is None:
            continue
        for fn in _functions(module["body"]):
            first = _receiver(fn)
            if not first:
                continue
            walk = _Walk(module["path"], fn["name"], first, first, rules)
            walk.block(fn["body"], [])
            out.extend(walk.out)
    return out


def extract_effects(root: Path, cache_dir: Path | None = None) -> list[Effect]:
    """Every guarded write and rejection of the revision at `root` (the parent of `sglang/`)."""
    from flagscan.extract.irstore import ModuleStore

    rules = load("effects")
    store = ModuleStore(Path(root), cache_dir)
    return _record_effects(store, rules) + _hook_effects(store, Path(root), rules)
