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

from flagscan.facts import ir
from flagscan.facts.effects import Effect, canon, conjuncts, message_text, negate
from flagscan.facts.ir import const_str, is_kind, name_of, simple_name, view
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
                assign = view(ir.Assign, stmt)
                self._views(assign)
                for target in assign.targets:
                    self._write(target, assign.value, conds, assign.line)
                self._expr(assign.value, conds, assign.line)
            elif kind == "aug":
                aug = view(ir.AugAssign, stmt)
                self._write(aug.target, ["bin", aug.op, aug.target, aug.value], conds, aug.line)
            elif kind == "expr":
                expr = view(ir.ExprStmt, stmt)
                self._expr(expr.value, conds, expr.line)
            elif kind == "if":
                branch = view(ir.If, stmt)
                test, negated = conjuncts(branch.test, self.receivers), negate(branch.test, self.receivers)
                then_leaves = self._branch(branch.body, conds + test, self.guard + test)
                elif_chain = len(branch.orelse) == 1 and is_kind(branch.orelse[0], "if")
                else_leaves = self._branch(branch.orelse, conds + negated,
                                           self.guard if elif_chain else self.guard + negated) if branch.orelse else None
                if then_leaves and not branch.orelse:
                    conds = conds + negated   # an early exit guards what follows...
                    if then_leaves == "return":
                        # ...and an early return also decides which rules apply; an earlier
                        # rejection does not make the checks after it other rules.
                        self.guard = self.guard + negated
                if then_leaves and else_leaves:
                    return "return" if "return" in (then_leaves, else_leaves) else "raise"
            elif kind == "for":
                each = view(ir.For, stmt)
                loop = [f"for {canon(each.target, self.receivers)} in {canon(each.iter, self.receivers)}"]
                self._branch(each.body, conds + loop, self.guard + loop)
                self.block(each.orelse, conds)
            elif kind == "while":
                repeat = view(ir.While, stmt)
                loop = [f"while {canon(repeat.test, self.receivers)}"]
                self._branch(repeat.body, conds + loop, self.guard + loop)
            elif kind == "with":
                left = self.block(view(ir.With, stmt).body, conds)
                if left:
                    return left
            elif kind == "try":
                t = view(ir.Try, stmt)
                self.block(t.body, conds)
                for types, _name, handler_body in t.handlers:
                    caught = [f"except {canon(types, self.receivers) if types is not None else 'Exception'}"]
                    self._branch(handler_body, conds + caught, self.guard + caught)
                self.block(t.orelse, conds)
                self.block(t.finalbody, conds)
            elif kind == "raise":
                raised = view(ir.Raise, stmt)
                self._raise(raised.exc, conds, raised.line)
                return "raise"
            elif kind == "assert":
                check = view(ir.Assert, stmt)
                message = message_text(check.msg, self.receivers) if check.msg is not None \
                    else canon(check.test, self.receivers)
                failed = negate(check.test, self.receivers)
                self.emit("reject", "", conds + failed, message, check.line, failed)
            elif kind == "ret":
                return "return"
        return None

    def _views(self, assign: ir.Assign) -> None:
        value = assign.value
        names = {name for name in map(name_of, assign.targets) if name is not None}
        if is_kind(value, "call"):
            func = view(ir.Call, value).func
            views = self.rules["views"]["functions"]
            plain = name_of(func) in views
            method = is_kind(func, "a") and name_of(view(ir.Attr, func).value) in self.record \
                and view(ir.Attr, func).attr in views
            if plain or method:
                self.receivers = self.receivers | names
        if len(names) == 1 and _is_text(value):
            self.strings[next(iter(names))] = value   # `msg = "..."; raise ValueError(msg)`

    def _write(self, target: Any, value: Any, conds: list[str], line: int) -> None:
        if is_kind(target, "a"):
            a = view(ir.Attr, target)
            if name_of(a.value) in self.record and not a.attr.startswith("_"):
                self.emit("write", a.attr, conds, canon(value, self.receivers), line)

    def _expr(self, node: Any, conds: list[str], line: int) -> None:
        if not is_kind(node, "call"):
            return
        call = view(ir.Call, node)
        func, args = call.func, call.args
        name = simple_name(func) or None
        writers = self.rules["writers"]
        if name in writers:
            index = writers[name]
            record: Any = args[index] if len(args) > index else None
            if name_of(record) in self.record:
                for key, value in call.keywords:
                    if key != "**" and not key.startswith("_"):
                        self.emit("write", key, conds, canon(value, self.receivers), line)
        if is_kind(func, "a") and name_of(view(ir.Attr, func).value) in self.record:
            self.calls.add(view(ir.Attr, func).attr)
        if name == "setattr" and len(args) >= 3 and name_of(args[0]) in self.record and const_str(args[1]) is not None:
            self.emit("write", str(const_str(args[1])), conds, canon(args[2], self.receivers), line)

    def _raise(self, exc: Any, conds: list[str], line: int) -> None:
        if exc is None:
            return  # a bare re-raise: the original rejection is recorded where it is raised
        kind = view(ir.Call, exc).func if is_kind(exc, "call") else exc
        name = canon(kind, frozenset())
        if name.rsplit(".", 1)[-1] in self.rules["rejections"]["ignore_exceptions"]:
            return
        first: Any = view(ir.Call, exc).args[0] if is_kind(exc, "call") and view(ir.Call, exc).args else None
        if name_of(first) in self.strings:
            first = self.strings[str(name_of(first))]
        message = message_text(first, self.receivers) if first is not None else name
        self.emit("reject", "", conds, message, line)


def _is_text(node: Any) -> bool:
    if is_kind(node, "c"):
        return const_str(node) is not None
    if is_kind(node, "bin") and view(ir.BinOp, node).op == "+":
        return _is_text(view(ir.BinOp, node).left) and _is_text(view(ir.BinOp, node).right)
    return is_kind(node, "fstr")


def _functions(body: list[Any]) -> Iterator[dict[str, Any]]:
    for stmt in body:
        if is_kind(stmt, "def"):
            yield view(ir.Def, stmt).func


def _class(module: dict[str, Any], name: str) -> dict[str, Any] | None:
    for stmt in module["body"]:
        if is_kind(stmt, "class") and view(ir.ClassDef, stmt).cls["name"] == name:
            cls: dict[str, Any] = view(ir.ClassDef, stmt).cls
            return cls
    return None


def _receiver(fn: dict[str, Any]) -> frozenset[str]:
    """The name of a function's first positional parameter: the record, for a method of
    the record (its `self`) and for a hook (`def hook(server_args)`); empty without one
    and for a static or class method."""
    if any(name_of(d) in ("staticmethod", "classmethod") for d in fn.get("decorators", [])):
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
