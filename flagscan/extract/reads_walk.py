"""extract: find runtime reads of settings in one lowered module, with their influence guards.

Works on the IR (flagscan/facts/ir.py). Which expressions stand for the
resolved ServerArgs is rule data (rules/reads.toml); names are qualified
through the module's own import statements (anywhere in the file, as SGLang
often imports inside functions), so `from sglang.srt.server_args import
get_global_server_args as g` is followed and a same-named function from
another module is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flagscan.facts.reads import CallSite, FileFacts, Guard, Mirror, Read, Write, reads_in, transform
from flagscan.facts.render import render
from flagscan.ruledata import load

_TERMINAL = {"ret": "return", "raise": "raise", "continue": "return", "break": "return"}


@dataclass(frozen=True, slots=True)
class Idioms:
    accessors: dict[str, tuple[str, bool]]   # qualified function -> (idiom, namespaced)
    dicts: dict[str, str]                     # qualified name -> idiom
    names: dict[str, str]
    attributes: dict[str, str]
    getattrs: frozenset[str]
    resolution: tuple[str, ...]
    exclude: tuple[str, ...]
    needles: tuple[bytes, ...]
    record_names: frozenset[str]   # what the record itself is called in resolution code

    @classmethod
    def from_rules(cls) -> Idioms:
        data = load("reads")
        accessors: dict[str, tuple[str, bool]] = {}
        dicts: dict[str, str] = {}
        names: dict[str, str] = {}
        attributes: dict[str, str] = {}
        getattrs: set[str] = set()
        for idiom in data["idiom"]:
            kind, name = idiom["kind"], idiom["name"]
            if kind == "accessor":
                for f in idiom["functions"]:
                    accessors[f] = (name, bool(idiom.get("namespaced", False)))
            elif kind == "dict":
                dicts.update({n: name for n in idiom["names"]})
            elif kind == "name":
                names.update({n: name for n in idiom["names"]})
            elif kind == "attribute":
                attributes.update({n: name for n in idiom["attributes"]})
            elif kind == "getattr":
                getattrs.update(idiom["functions"])
        needles = tuple(n.encode() for n in data["prefilter"]["needles"])
        needles += tuple(f.rsplit(".", 1)[-1].encode() + b"(" for f in accessors)
        return cls(accessors, dicts, names, attributes, frozenset(getattrs), tuple(data["scope"]["resolution"]),
                   tuple(data["scope"]["exclude"]), needles, frozenset(load("record")["names"]["resolution"]))

    def role(self, relpath: str) -> str | None:
        """'resolution', 'runtime', or None (not analysed) for a path under the tree root."""
        if any(relpath.startswith(p) for p in self.resolution):
            return "resolution"
        if any(relpath.startswith(p) for p in self.exclude):
            return None
        return "runtime"


@dataclass(slots=True)
class Ctx:
    qual: str                    # qualified name of the enclosing function/class ("" = module)
    scope: str                   # the function whose locals guard tests see ("" = module)
    aliases: dict[str, tuple[str, bool, tuple[str, ...]]] = field(default_factory=dict)
    flows: dict[str, tuple[str, bool, tuple[str, ...]]] = field(default_factory=dict)
    globals_declared: set[str] = field(default_factory=set)
    cls: str = ""


class ModuleWalker:
    def __init__(self, ir: dict[str, Any], idioms: Idioms, resolution: bool = False) -> None:
        self.ir = ir
        self.idioms = idioms
        self.resolution = resolution
        self.module = ir["name"]
        self.path = ir["path"]
        self.facts = FileFacts(self.module, self.path)
        self.imports: dict[str, tuple[str, str | None]] = {}
        self.toplevel: set[str] = set()
        _collect_imports(ir["body"], self.imports)
        for stmt in ir["body"]:
            if stmt[0] == "def":
                self.toplevel.add(stmt[2]["name"])
        self.module_unknown: set[str] = set()
        self.global_writes: dict[str, int] = {}
        self.facts.scopes[""] = []

    # -- names ------------------------------------------------------------------------
    def qualify(self, node: Any) -> str | None:
        if node[0] == "n":
            name = node[1]
            if name in self.imports:
                mod, attr = self.imports[name]
                return f"{mod}.{attr}" if attr else mod
            if name in self.toplevel:
                return f"{self.module}.{name}"
            return None
        if node[0] == "a":
            base = self.qualify(node[1])
            return f"{base}.{node[2]}" if base else None
        return None

    def root(self, node: Any, ctx: Ctx) -> tuple[str, bool, tuple[str, ...]] | None:
        """(idiom, namespaced, chain so far) when `node` stands for the ServerArgs or a view of it."""
        kind = node[0]
        if kind == "call":
            q = self.qualify(node[1])
            if q is not None and q in self.idioms.accessors:
                idiom, ns = self.idioms.accessors[q]
                return idiom, ns, ()
            return None
        if kind == "n":
            name = node[1]
            if name in ctx.aliases:
                return ctx.aliases[name]
            if name in self.idioms.names:
                return self.idioms.names[name], False, ()
            if self.resolution and name in self.idioms.record_names:
                return "resolution self", False, ()
            return None
        if kind == "a":
            if node[2] in self.idioms.attributes:
                return self.idioms.attributes[node[2]], False, ()
            base = self.root(node[1], ctx)
            if base is not None and (base[1] or not base[2]):
                if base[1] or not base[2]:
                    return base[0], base[1], base[2] + (node[2],)
            return None
        return None

    def chain(self, node: Any, ctx: Ctx) -> tuple[str, bool, tuple[str, ...]] | None:
        """A read at `node`: (idiom, namespaced, chain) with a non-empty chain."""
        kind = node[0]
        if kind == "a":
            r = self.root(node, ctx)
            if r is not None and r[2]:
                return r
            return None
        if kind == "sub" and node[2][0] == "c" and isinstance(node[2][1], str):
            q = self.qualify(node[1])
            if q in self.idioms.dicts:
                return self.idioms.dicts[q], False, (node[2][1],)
            return None
        if kind == "call":
            func, args = node[1], node[2]
            if func[0] == "n" and func[1] in self.idioms.getattrs and len(args) >= 2 and isinstance(args[1], list) \
                    and args[1][0] == "c" and isinstance(args[1][1], str) and isinstance(args[0], list):
                r = self.root(args[0], ctx)
                if r is not None and (r[1] or not r[2]):
                    return "getattr", r[1], r[2] + (args[1][1],)
            if func[0] == "a" and func[2] == "get" and args and isinstance(args[0], list) and args[0][0] == "c" \
                    and isinstance(args[0][1], str):
                q = self.qualify(func[1])
                if q in self.idioms.dicts:
                    return self.idioms.dicts[q], False, (args[0][1],)
        if kind == "n" and node[1] in ctx.flows:
            return ctx.flows[node[1]]
        return None

    def mark(self, node: Any, ctx: Ctx) -> Any:
        """A copy of an expression with each read replaced by ["read", chain, namespaced, text]."""
        def replace(n: Any) -> Any:
            c = self.chain(n, ctx)
            return ["read", list(c[2]), c[1], render(n)] if c is not None else None

        return transform(node, replace)

    # -- statements ---------------------------------------------------------------------
    def run(self) -> FileFacts:
        ctx = Ctx("", "")
        self.block(self.ir["body"], (), ctx)
        self.facts.scopes[""] = sorted(self.module_unknown)
        # A global written in several places mirrors no single setting.
        self.facts.mirrors = [m for m in self.facts.mirrors if self.global_writes.get(m.name) == 1]
        return self.facts

    def guard(self, kind: str, test: Any, text: str | None, polarity: bool, line: int, ctx: Ctx) -> Guard:
        return Guard(kind, self.mark(test, ctx), text if text is not None else render(test), polarity, line, ctx.scope)

    def block(self, stmts: list[Any], guards: tuple[Guard, ...], ctx: Ctx) -> None:
        for stmt in stmts:
            self.stmt(stmt, guards, ctx)
            kind = stmt[0]
            exits: list[list[Any]] = []
            if kind == "if":
                body_exit, else_exit = _terminal(stmt[3]), _terminal(stmt[4])
                if body_exit and not else_exit:
                    guards = guards + (self.guard(body_exit, stmt[2], stmt[6], False, stmt[1], ctx),)
                    exits = stmt[4]
                elif else_exit and not body_exit and stmt[4]:
                    guards = guards + (self.guard(else_exit, stmt[2], stmt[6], True, stmt[1], ctx),)
                    exits = stmt[3]
                elif not (body_exit and else_exit):
                    exits = stmt[3] + stmt[4]
            elif kind == "assert":
                guards = guards + (self.guard("raise", stmt[2], stmt[5], True, stmt[1], ctx),)
            elif kind in ("for", "while", "with", "try"):
                exits = [stmt]
            line = _nested_exit(exits)
            if line is not None:
                # what follows runs only when that nested return/raise/assert did not end the function
                text = f"no early exit at line {line}"
                guards = guards + (self.guard("return", ["unk", text], text, True, line, ctx),)

    def stmt(self, stmt: list[Any], guards: tuple[Guard, ...], ctx: Ctx) -> None:
        kind, line = stmt[0], stmt[1]
        if kind == "if":
            self.expr(stmt[2], guards, ctx, line)
            self.block(stmt[3], guards + (self.guard("if", stmt[2], stmt[6], True, line, ctx),), ctx)
            if stmt[4]:
                self.block(stmt[4], guards + (self.guard("else", stmt[2], stmt[6], False, line, ctx),), ctx)
        elif kind == "while":
            self.expr(stmt[2], guards, ctx, line)
            self.block(stmt[3], guards + (self.guard("while", stmt[2], None, True, line, ctx),), ctx)
        elif kind == "for":
            self.expr(stmt[3], guards, ctx, line)
            self.block(stmt[4], guards, ctx)
            self.block(stmt[5], guards, ctx)
        elif kind == "try":
            self.block(stmt[2], guards, ctx)
            exc = self.guard("except", ["unk", "an exception was raised"], "an exception was raised", True, line, ctx)
            for handler in stmt[3]:
                self.block(handler[2], guards + (exc,), ctx)
            self.block(stmt[4], guards, ctx)
            self.block(stmt[5], guards, ctx)
        elif kind == "with":
            for item, _target in stmt[2]:
                self.expr(item, guards, ctx, line)
            self.block(stmt[3], guards, ctx)
        elif kind == "def":
            self.function(stmt[2], guards, ctx)
        elif kind == "class":
            cls = stmt[2]
            for e in cls["bases"] + cls["decorators"]:
                self.expr(e, guards, ctx, line)
            inner = Ctx(_join(ctx.qual, cls["name"]), ctx.scope, dict(ctx.aliases), dict(ctx.flows), cls=cls["name"])
            self.block(cls["body"], guards, inner)
        elif kind == "assign":
            value = stmt[3]
            self.expr(value, guards, ctx, line)
            for target in stmt[2]:
                self.target(target, value, guards, ctx, line)
        elif kind == "aug":
            self.expr(stmt[4], guards, ctx, line)
            self.target(stmt[2], None, guards, ctx, line)
        elif kind in ("expr", "ret", "raise"):
            if stmt[2] is not None:
                self.expr(stmt[2], guards, ctx, line)
        elif kind == "assert":
            self.expr(stmt[2], guards, ctx, line)

    def target(self, target: Any, value: Any, guards: tuple[Guard, ...], ctx: Ctx, line: int) -> None:
        kind = target[0]
        if kind == "n":
            name = target[1]
            if name in ctx.globals_declared:
                self.global_writes[name] = self.global_writes.get(name, 0) + 1
                read, negate = _unwrap_not(value) if value is not None else (None, False)
                c = self.chain(read, ctx) if read is not None else None
                # Only an unconditional write in its function mirrors the setting.
                if c is not None and not any(g.scope == ctx.scope for g in guards):
                    self.facts.mirrors.append(Mirror(name, c[2], c[1], negate, line))
            return
        if kind == "a":
            base = self.root(target[1], ctx)
            if self.resolution and base is not None and not base[2]:
                self.write(target[2], value, guards, ctx, line)
            else:
                self.expr(target[1], guards, ctx, line)
        elif kind == "sub":
            self.expr(target[1], guards, ctx, line)
            self.expr(target[2], guards, ctx, line)
        elif kind == "tuple":
            for t in target[1]:
                self.target(t, None, guards, ctx, line)

    def function(self, fn: dict[str, Any], guards: tuple[Guard, ...], ctx: Ctx) -> None:
        for d in fn["decorators"]:
            self.expr(d, guards, ctx, fn["line"])
        for _name, default, _kind in fn["params"]:
            if default is not None:
                self.expr(default, guards, ctx, fn["line"])
        qual = _join(ctx.qual, fn["name"])
        declared: set[str] = set()
        bound = {p[0] for p in fn["params"]}
        _bindings(fn["body"], bound, declared)
        bound -= declared
        if declared:
            self.facts.rebound.extend(sorted(declared - set(self.facts.rebound)))
        inner = Ctx(qual, qual, dict(ctx.aliases), {}, declared, ctx.cls)
        for p in fn["params"]:
            inner.aliases.pop(p[0], None)
        self._aliases(fn["body"], inner)
        self.facts.scopes[qual] = sorted(bound)
        self.block(fn["body"], guards, inner)

    def _aliases(self, body: list[Any], ctx: Ctx) -> None:
        """Locals bound once to the ServerArgs, a view of it, or one setting."""
        counts: dict[str, int] = {}
        values: dict[str, Any] = {}
        _assign_counts(body, counts, values)
        for name, value in values.items():
            if counts.get(name) != 1 or name in ctx.globals_declared:
                continue
            r = self.root(value, ctx)
            if r is not None and (r[1] or not r[2]):
                ctx.aliases[name] = r
                continue
            c = self.chain(value, ctx)
            if c is not None:
                ctx.flows[name] = c

    def write(self, attr: str, value: Any, guards: tuple[Guard, ...], ctx: Ctx, line: int) -> None:
        sources: list[str] = []
        for g in guards:
            _read_chains(g.test, sources)
        if value is not None:
            self.expr(value, guards, ctx, line)
            _read_chains(self.mark(value, ctx), sources)
        text = render(value) if value is not None else ""
        self.facts.writes.append(Write(attr, tuple(dict.fromkeys(sources)), line, ctx.qual,
                                       tuple(g.shown for g in guards), text[:160]))

    # -- expressions --------------------------------------------------------------------
    def expr(self, node: Any, guards: tuple[Guard, ...], ctx: Ctx, line: int) -> None:
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            return
        kind = node[0]
        c = self.chain(node, ctx)
        if c is not None:
            nline = node[3] if kind in ("a", "sub") and len(node) > 3 else (node[4] if kind == "call" and len(node) > 4 else line)
            via = node[1] if kind == "n" else ""
            if not self.resolution and not (kind == "call" and c[2] == ()):
                self.facts.reads.append(Read(c[2], c[1], c[0], self.path, nline, ctx.qual, guards, via))
        if kind == "n":
            if node[1] in self.toplevel or (node[1] in self.imports and self.imports[node[1]][1]):
                callee = self.qualify(node)
                if callee:
                    self.facts.calls.append(CallSite(callee, "ref", self.path, line, ctx.qual, guards))
            return
        if kind == "c" or kind == "unk":
            return
        if kind == "call":
            func = node[1]
            nline = node[4] if len(node) > 4 else line
            callee = self.qualify(func) if func[0] in ("n", "a") else None
            if callee is not None and (func[0] == "a" or func[1] in self.toplevel or func[1] in self.imports):
                self.facts.calls.append(CallSite(callee, "call", self.path, nline, ctx.qual, guards))
                if func[0] == "a":
                    self.expr(func[1], guards, ctx, nline)
            else:
                self.expr(func, guards, ctx, nline)
            for a in node[2]:
                self.expr(a[1] if a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list) else a, guards, ctx, nline)
            for _k, v in node[3]:
                self.expr(v, guards, ctx, nline)
            return
        if kind == "bool":
            pre: tuple[Guard, ...] = ()
            for operand in node[2]:
                self.expr(operand, guards + pre, ctx, line)
                pre = pre + (self.guard(node[1], operand, None, node[1] == "and", line, ctx),)
            return
        if kind == "ifx":
            self.expr(node[1], guards, ctx, line)
            self.expr(node[2], guards + (self.guard("ternary", node[1], None, True, line, ctx),), ctx, line)
            self.expr(node[3], guards + (self.guard("ternary", node[1], None, False, line, ctx),), ctx, line)
            return
        if kind == "comp":
            for target, it, ifs in node[3]:
                self._unknown_names(target, ctx)
                self.expr(it, guards, ctx, line)
                for cond in ifs:
                    self.expr(cond, guards, ctx, line)
            if node[1] != "dict":
                self.expr(node[2], guards, ctx, line)
            else:
                for x in node[2]:   # a dict comprehension's element is its key and its value
                    self.expr(x, guards, ctx, line)
            return
        if kind == "lambda":
            for p in node[1]:
                self._unknown_names(["n", p[0]], ctx)
            self.expr(node[2], guards, ctx, line)
            return
        if kind == "walrus":
            self._unknown_names(["n", node[1]], ctx)
            self.expr(node[2], guards, ctx, line)
            return
        if kind == "dict":
            for k, v in node[1]:
                self.expr(k, guards, ctx, line)
                self.expr(v, guards, ctx, line)
            return
        if kind == "fstr":
            for part in node[1]:
                if isinstance(part, list):
                    self.expr(part[1], guards, ctx, line)
            return
        for x in node[1:]:
            if isinstance(x, list):
                if x and isinstance(x[0], str):
                    self.expr(x, guards, ctx, line)
                else:
                    for y in x:
                        if isinstance(y, list) and y and isinstance(y[0], str):
                            self.expr(y, guards, ctx, line)
                        elif isinstance(y, list):
                            for z in y:
                                self.expr(z, guards, ctx, line)

    def _unknown_names(self, target: Any, ctx: Ctx) -> None:
        names: set[str] = set()
        _target_names(target, names)
        if ctx.scope:
            scope = self.facts.scopes.setdefault(ctx.scope, [])
            scope.extend(n for n in names if n not in scope)
        else:
            self.module_unknown |= names


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _terminal(block: list[Any]) -> str | None:
    if not block:
        return None
    last = block[-1]
    if last[0] in _TERMINAL:
        return _TERMINAL[last[0]]
    if last[0] == "if":
        a, b = _terminal(last[3]), _terminal(last[4])
        if a and b:
            return "raise" if a == b == "raise" else "return"
    return None


def _nested_exit(stmts: list[Any]) -> int | None:
    """The line of a return/raise/assert nested in these statements (not in nested
    functions or classes, nor in except handlers: exceptions are not conditions here)."""
    for stmt in stmts:
        if stmt[0] in ("ret", "raise", "assert"):
            exit_line: int = stmt[1]
            return exit_line
        for block in nested_blocks(stmt, handlers=False):
            line = _nested_exit(block)
            if line is not None:
                return line
    return None


def nested_blocks(stmt: list[Any], *, handlers: bool = True) -> list[list[Any]]:
    """The statement lists nested in a compound statement (not in nested defs or classes)."""
    kind = stmt[0]
    if kind == "if":
        return [stmt[3], stmt[4]]
    if kind == "for":
        return [stmt[4], stmt[5]]
    if kind in ("while", "with"):
        return [stmt[3]]
    if kind == "try":
        return [stmt[2], *([h[2] for h in stmt[3]] if handlers else []), stmt[4], stmt[5]]
    return []


def _unwrap_not(node: Any) -> tuple[Any, bool]:
    negate = False
    while isinstance(node, list) and node and ((node[0] == "un" and node[1] == "not")
                                               or (node[0] == "call" and node[1] == ["n", "bool"] and len(node[2]) == 1)):
        if node[0] == "un":
            negate = not negate
            node = node[2]
        else:
            node = node[2][0]
    return node, negate


def _read_chains(node: Any, out: list[str]) -> None:
    out.extend(".".join(n[1]) for n in reads_in(node))


def _target_names(target: Any, out: set[str]) -> None:
    if not isinstance(target, list) or not target:
        return
    if target[0] == "n":
        out.add(target[1])
    elif target[0] == "tuple":
        for t in target[1]:
            _target_names(t, out)


def _bindings(body: list[Any], bound: set[str], declared: set[str]) -> None:
    """Names a function body binds (its locals) and the names it declares global."""
    for stmt in body:
        kind = stmt[0]
        if kind == "assign":
            for t in stmt[2]:
                _target_names(t, bound)
        elif kind == "aug":
            _target_names(stmt[2], bound)
        elif kind == "for":
            _target_names(stmt[2], bound)
            _bindings(stmt[4], bound, declared)
            _bindings(stmt[5], bound, declared)
        elif kind == "if":
            _bindings(stmt[3], bound, declared)
            _bindings(stmt[4], bound, declared)
        elif kind == "while":
            _bindings(stmt[3], bound, declared)
        elif kind == "try":
            _bindings(stmt[2], bound, declared)
            for h in stmt[3]:
                if h[1]:
                    bound.add(h[1])
                _bindings(h[2], bound, declared)
            _bindings(stmt[4], bound, declared)
            _bindings(stmt[5], bound, declared)
        elif kind == "with":
            for _e, t in stmt[2]:
                _target_names(t, bound)
            _bindings(stmt[3], bound, declared)
        elif kind == "def":
            bound.add(stmt[2]["name"])
        elif kind == "class":
            bound.add(stmt[2]["name"])
        elif kind == "import":
            for local, _m, attr in stmt[2]:
                if attr != "*":
                    bound.add(local)
        elif kind == "pass" and len(stmt) > 3 and stmt[2] == "global":
            declared.update(stmt[3])


def _assign_counts(body: list[Any], counts: dict[str, int], values: dict[str, Any]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "assign":
            for t in stmt[2]:
                names: set[str] = set()
                _target_names(t, names)
                for n in names:
                    counts[n] = counts.get(n, 0) + 1
                    if t[0] == "n":
                        values[n] = stmt[3]
        elif kind in ("aug", "for"):
            names = set()
            _target_names(stmt[2], names)
            for n in names:
                counts[n] = counts.get(n, 0) + 2
        elif kind == "with":
            for _e, t in stmt[2]:
                names = set()
                _target_names(t, names)
                for n in names:
                    counts[n] = counts.get(n, 0) + 2
        elif kind == "def":
            counts[stmt[2]["name"]] = counts.get(stmt[2]["name"], 0) + 2
        for block in nested_blocks(stmt):
            _assign_counts(block, counts, values)


def _collect_imports(body: list[Any], out: dict[str, tuple[str, str | None]]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "import":
            for local, module, attr in stmt[2]:
                if attr != "*":
                    out.setdefault(local, (module, attr))
        elif kind == "def":
            _collect_imports(stmt[2]["body"], out)
        elif kind == "class":
            _collect_imports(stmt[2]["body"], out)
        elif kind == "if":
            _collect_imports(stmt[3], out)
            _collect_imports(stmt[4], out)
        elif kind == "try":
            _collect_imports(stmt[2], out)
            for h in stmt[3]:
                _collect_imports(h[2], out)
            _collect_imports(stmt[4], out)
        elif kind in ("for", "while", "with"):
            _collect_imports(stmt[4] if kind == "for" else stmt[3], out)


def walk_module(ir: dict[str, Any], idioms: Idioms, resolution: bool = False) -> FileFacts:
    return ModuleWalker(ir, idioms, resolution).run()
