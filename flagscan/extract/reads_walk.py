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

from flagscan.facts import ir as irv
from flagscan.facts.ir import view
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
                self.toplevel.add(view(irv.Def, stmt).func["name"])
        self.module_unknown: set[str] = set()
        self.global_writes: dict[str, int] = {}
        self.facts.scopes[""] = []

    # -- names ------------------------------------------------------------------------
    def qualify(self, node: Any) -> str | None:
        if node[0] == "n":
            name = view(irv.Name, node).id
            if name in self.imports:
                mod, attr = self.imports[name]
                return f"{mod}.{attr}" if attr else mod
            if name in self.toplevel:
                return f"{self.module}.{name}"
            return None
        if node[0] == "a":
            a = view(irv.Attr, node)
            base = self.qualify(a.value)
            return f"{base}.{a.attr}" if base else None
        return None

    def root(self, node: Any, ctx: Ctx) -> tuple[str, bool, tuple[str, ...]] | None:
        """(idiom, namespaced, chain so far) when `node` stands for the ServerArgs or a view of it."""
        kind = node[0]
        if kind == "call":
            q = self.qualify(view(irv.Call, node).func)
            if q is not None and q in self.idioms.accessors:
                idiom, ns = self.idioms.accessors[q]
                return idiom, ns, ()
            return None
        if kind == "n":
            name = view(irv.Name, node).id
            if name in ctx.aliases:
                return ctx.aliases[name]
            if name in self.idioms.names:
                return self.idioms.names[name], False, ()
            if self.resolution and name in self.idioms.record_names:
                return "resolution self", False, ()
            return None
        if kind == "a":
            a = view(irv.Attr, node)
            if a.attr in self.idioms.attributes:
                return self.idioms.attributes[a.attr], False, ()
            base = self.root(a.value, ctx)
            if base is not None and (base[1] or not base[2]):
                idiom, namespaced, chain = base
                return idiom, namespaced, chain + (a.attr,)
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
        if kind == "sub":
            sub = view(irv.Subscript, node)
            key = _str_const(sub.item)
            if key is None:
                return None
            q = self.qualify(sub.value)
            if q in self.idioms.dicts:
                return self.idioms.dicts[q], False, (key,)
            return None
        if kind == "call":
            func, args = view(irv.Call, node)[:2]
            name = _str_const(args[1]) if len(args) >= 2 else None
            if func[0] == "n" and view(irv.Name, func).id in self.idioms.getattrs and name is not None \
                    and isinstance(args[0], list):
                r = self.root(args[0], ctx)
                if r is not None and (r[1] or not r[2]):
                    return "getattr", r[1], r[2] + (name,)
            key = _str_const(args[0]) if args else None
            if func[0] == "a" and view(irv.Attr, func).attr == "get" and key is not None:
                q = self.qualify(view(irv.Attr, func).value)
                if q in self.idioms.dicts:
                    return self.idioms.dicts[q], False, (key,)
        if kind == "n" and view(irv.Name, node).id in ctx.flows:
            return ctx.flows[view(irv.Name, node).id]
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
                branch = view(irv.If, stmt)
                body_exit, else_exit = _terminal(branch.body), _terminal(branch.orelse)
                if body_exit and not else_exit:
                    guards = guards + (self.guard(body_exit, branch.test, branch.source_text, False, branch.line, ctx),)
                    exits = branch.orelse
                elif else_exit and not body_exit and branch.orelse:
                    guards = guards + (self.guard(else_exit, branch.test, branch.source_text, True, branch.line, ctx),)
                    exits = branch.body
                elif not (body_exit and else_exit):
                    exits = branch.body + branch.orelse
            elif kind == "assert":
                check = view(irv.Assert, stmt)
                guards = guards + (self.guard("raise", check.test, check.source_text, True, check.line, ctx),)
            elif kind in ("for", "while", "with", "try"):
                exits = [stmt]
            line = _nested_exit(exits)
            if line is not None:
                # what follows runs only when that nested return/raise/assert did not end the function
                text = f"no early exit at line {line}"
                guards = guards + (self.guard("return", ["unk", text], text, True, line, ctx),)

    def stmt(self, stmt: list[Any], guards: tuple[Guard, ...], ctx: Ctx) -> None:
        kind, line = stmt[0], stmt[1]   # every statement's kind and line
        if kind == "if":
            branch = view(irv.If, stmt)
            self.expr(branch.test, guards, ctx, line)
            self.block(branch.body, guards + (self.guard("if", branch.test, branch.source_text, True, line, ctx),), ctx)
            if branch.orelse:
                self.block(branch.orelse,
                           guards + (self.guard("else", branch.test, branch.source_text, False, line, ctx),), ctx)
        elif kind == "while":
            loop = view(irv.While, stmt)
            self.expr(loop.test, guards, ctx, line)
            self.block(loop.body, guards + (self.guard("while", loop.test, None, True, line, ctx),), ctx)
        elif kind == "for":
            each = view(irv.For, stmt)
            self.expr(each.iter, guards, ctx, line)
            self.block(each.body, guards, ctx)
            self.block(each.orelse, guards, ctx)
        elif kind == "try":
            t = view(irv.Try, stmt)
            self.block(t.body, guards, ctx)
            exc = self.guard("except", ["unk", "an exception was raised"], "an exception was raised", True, line, ctx)
            for _types, _name, handler_body in t.handlers:
                self.block(handler_body, guards + (exc,), ctx)
            self.block(t.orelse, guards, ctx)
            self.block(t.finalbody, guards, ctx)
        elif kind == "with":
            w = view(irv.With, stmt)
            for item, _target in w.items:
                self.expr(item, guards, ctx, line)
            self.block(w.body, guards, ctx)
        elif kind == "def":
            self.function(view(irv.Def, stmt).func, guards, ctx)
        elif kind == "class":
            cls = view(irv.ClassDef, stmt).cls
            for e in cls["bases"] + cls["decorators"]:
                self.expr(e, guards, ctx, line)
            inner = Ctx(_join(ctx.qual, cls["name"]), ctx.scope, dict(ctx.aliases), dict(ctx.flows), cls=cls["name"])
            self.block(cls["body"], guards, inner)
        elif kind == "assign":
            _line, targets, value = view(irv.Assign, stmt)
            self.expr(value, guards, ctx, line)
            for target in targets:
                self.target(target, value, guards, ctx, line)
        elif kind == "aug":
            aug = view(irv.AugAssign, stmt)
            self.expr(aug.value, guards, ctx, line)
            self.target(aug.target, None, guards, ctx, line)
        elif kind in ("expr", "ret", "raise"):
            value = view(irv.ExprStmt, stmt).value   # the same shape for the three: [kind, line, expr|None]
            if value is not None:
                self.expr(value, guards, ctx, line)
        elif kind == "assert":
            self.expr(view(irv.Assert, stmt).test, guards, ctx, line)

    def target(self, target: Any, value: Any, guards: tuple[Guard, ...], ctx: Ctx, line: int) -> None:
        kind = target[0]
        if kind == "n":
            name = view(irv.Name, target).id
            if name in ctx.globals_declared:
                self.global_writes[name] = self.global_writes.get(name, 0) + 1
                read, negate = _unwrap_not(value) if value is not None else (None, False)
                c = self.chain(read, ctx) if read is not None else None
                # Only an unconditional write in its function mirrors the setting.
                if c is not None and not any(g.scope == ctx.scope for g in guards):
                    self.facts.mirrors.append(Mirror(name, c[2], c[1], negate, line))
            return
        if kind == "a":
            a = view(irv.Attr, target)
            base = self.root(a.value, ctx)
            if self.resolution and base is not None and not base[2]:
                self.write(a.attr, value, guards, ctx, line)
            else:
                self.expr(a.value, guards, ctx, line)
        elif kind == "sub":
            sub = view(irv.Subscript, target)
            self.expr(sub.value, guards, ctx, line)
            self.expr(sub.item, guards, ctx, line)
        elif kind == "tuple":
            for t in view(irv.Elements, target).elts:
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
            # attributes, subscripts and calls carry their own line (0 in a lowering without it)
            own = view(irv.EXPRESSIONS[kind], node).line if kind in ("a", "sub", "call") else 0
            nline = own or line
            via = view(irv.Name, node).id if kind == "n" else ""
            if not self.resolution and not (kind == "call" and c[2] == ()):
                self.facts.reads.append(Read(c[2], c[1], c[0], self.path, nline, ctx.qual, guards, via))
        if kind == "n":
            name = view(irv.Name, node).id
            if name in self.toplevel or (name in self.imports and self.imports[name][1]):
                callee = self.qualify(node)
                if callee:
                    self.facts.calls.append(CallSite(callee, "ref", self.path, line, ctx.qual, guards))
            return
        if kind == "c" or kind == "unk":
            return
        if kind == "call":
            call = view(irv.Call, node)
            func = call.func
            nline = call.line or line
            callee = self.qualify(func) if func[0] in ("n", "a") else None
            if callee is not None and (func[0] == "a" or view(irv.Name, func).id in self.toplevel
                                       or view(irv.Name, func).id in self.imports):
                self.facts.calls.append(CallSite(callee, "call", self.path, nline, ctx.qual, guards))
                if func[0] == "a":
                    self.expr(view(irv.Attr, func).value, guards, ctx, nline)
            else:
                self.expr(func, guards, ctx, nline)
            for a in call.args:
                self.expr(a[1] if a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list) else a, guards, ctx, nline)
            for _k, v in call.keywords:
                self.expr(v, guards, ctx, nline)
            return
        if kind == "bool":
            op, operands = view(irv.BoolOp, node)
            pre: tuple[Guard, ...] = ()
            for operand in operands:
                self.expr(operand, guards + pre, ctx, line)
                pre = pre + (self.guard(op, operand, None, op == "and", line, ctx),)
            return
        if kind == "ifx":
            test, body, orelse = view(irv.IfExp, node)
            self.expr(test, guards, ctx, line)
            self.expr(body, guards + (self.guard("ternary", test, None, True, line, ctx),), ctx, line)
            self.expr(orelse, guards + (self.guard("ternary", test, None, False, line, ctx),), ctx, line)
            return
        if kind == "comp":
            comp_kind, elt, generators = view(irv.Comprehension, node)
            for target, it, ifs in generators:
                self._unknown_names(target, ctx)
                self.expr(it, guards, ctx, line)
                for cond in ifs:
                    self.expr(cond, guards, ctx, line)
            if comp_kind != "dict":
                self.expr(elt, guards, ctx, line)
            else:
                for x in elt:   # a dict comprehension's element is its key and its value
                    self.expr(x, guards, ctx, line)
            return
        if kind == "lambda":
            params, body = view(irv.Lambda, node)
            for p in params:
                self._unknown_names(["n", p[0]], ctx)
            self.expr(body, guards, ctx, line)
            return
        if kind == "walrus":
            name, value = view(irv.Walrus, node)
            self._unknown_names(["n", name], ctx)
            self.expr(value, guards, ctx, line)
            return
        if kind == "dict":
            for k, v in view(irv.DictExp, node).items:
                self.expr(k, guards, ctx, line)
                self.expr(v, guards, ctx, line)
            return
        if kind == "fstr":
            for part in view(irv.FString, node).parts:
                if isinstance(part, list):
                    self.expr(part[1], guards, ctx, line)   # ["fv", expr, conversion]
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
        branch = view(irv.If, last)
        a, b = _terminal(branch.body), _terminal(branch.orelse)
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
        branch = view(irv.If, stmt)
        return [branch.body, branch.orelse]
    if kind == "for":
        each = view(irv.For, stmt)
        return [each.body, each.orelse]
    if kind == "while":
        return [view(irv.While, stmt).body]
    if kind == "with":
        return [view(irv.With, stmt).body]
    if kind == "try":
        t = view(irv.Try, stmt)
        return [t.body, *([body for _types, _name, body in t.handlers] if handlers else []), t.orelse, t.finalbody]
    return []


def _unwrap_not(node: Any) -> tuple[Any, bool]:
    """`not x` and `bool(x)` around a read: (x, whether it is negated)."""
    negate = False
    while isinstance(node, list) and node:
        if node[0] == "un" and view(irv.UnaryOp, node).op == "not":
            negate = not negate
            node = view(irv.UnaryOp, node).operand
        elif node[0] == "call" and view(irv.Call, node).func == ["n", "bool"] and len(view(irv.Call, node).args) == 1:
            node = view(irv.Call, node).args[0]
        else:
            break
    return node, negate


def _read_chains(node: Any, out: list[str]) -> None:
    out.extend(".".join(view(irv.Marked, n).chain) for n in reads_in(node))


def _target_names(target: Any, out: set[str]) -> None:
    if not isinstance(target, list) or not target:
        return
    if target[0] == "n":
        out.add(view(irv.Name, target).id)
    elif target[0] == "tuple":
        for t in view(irv.Elements, target).elts:
            _target_names(t, out)


def _bindings(body: list[Any], bound: set[str], declared: set[str]) -> None:
    """Names a function body binds (its locals) and the names it declares global."""
    for stmt in body:
        kind = stmt[0]
        if kind == "assign":
            for t in view(irv.Assign, stmt).targets:
                _target_names(t, bound)
        elif kind in ("aug", "for"):
            _target_names(view(irv.AugAssign, stmt).target if kind == "aug" else view(irv.For, stmt).target, bound)
        elif kind == "try":
            for _types, name, _body in view(irv.Try, stmt).handlers:
                if name:
                    bound.add(name)
        elif kind == "with":
            for _e, t in view(irv.With, stmt).items:
                _target_names(t, bound)
        elif kind == "def":
            bound.add(view(irv.Def, stmt).func["name"])
        elif kind == "class":
            bound.add(view(irv.ClassDef, stmt).cls["name"])
        elif kind == "import":
            for local, _m, attr in view(irv.Import, stmt).names:
                if attr != "*":
                    bound.add(local)
        elif kind == "pass" and len(stmt) > 3 and stmt[2] == "global":
            declared.update(stmt[3])   # ["pass", line, "global", [name...]]
        for block in nested_blocks(stmt):
            _bindings(block, bound, declared)


def _assign_counts(body: list[Any], counts: dict[str, int], values: dict[str, Any]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "assign":
            _line, targets, value = view(irv.Assign, stmt)
            for t in targets:
                names: set[str] = set()
                _target_names(t, names)
                for n in names:
                    counts[n] = counts.get(n, 0) + 1
                    if t[0] == "n":
                        values[n] = value
        elif kind in ("aug", "for"):
            names = set()
            _target_names(view(irv.AugAssign, stmt).target if kind == "aug" else view(irv.For, stmt).target, names)
            for n in names:
                counts[n] = counts.get(n, 0) + 2
        elif kind == "with":
            for _e, t in view(irv.With, stmt).items:
                names = set()
                _target_names(t, names)
                for n in names:
                    counts[n] = counts.get(n, 0) + 2
        elif kind == "def":
            name = view(irv.Def, stmt).func["name"]
            counts[name] = counts.get(name, 0) + 2
        for block in nested_blocks(stmt):
            _assign_counts(block, counts, values)


def _collect_imports(body: list[Any], out: dict[str, tuple[str, str | None]]) -> None:
    for stmt in body:
        kind = stmt[0]
        if kind == "import":
            for local, module, attr in view(irv.Import, stmt).names:
                if attr != "*":
                    out.setdefault(local, (module, attr))
        elif kind == "def":
            _collect_imports(view(irv.Def, stmt).func["body"], out)
        elif kind == "class":
            _collect_imports(view(irv.ClassDef, stmt).cls["body"], out)
        elif kind == "if":
            branch = view(irv.If, stmt)
            _collect_imports(branch.body, out)
            _collect_imports(branch.orelse, out)
        elif kind == "try":   # not the finally block
            t = view(irv.Try, stmt)
            _collect_imports(t.body, out)
            for _types, _name, handler_body in t.handlers:
                _collect_imports(handler_body, out)
            _collect_imports(t.orelse, out)
        elif kind in ("for", "while", "with"):   # the body, not a for loop's else block
            _collect_imports(nested_blocks(stmt)[0], out)


def walk_module(ir: dict[str, Any], idioms: Idioms, resolution: bool = False) -> FileFacts:
    return ModuleWalker(ir, idioms, resolution).run()


def _str_const(node: Any) -> str | None:
    """The string of a string constant node (`server_args["tp_size"]`'s key), else None."""
    if isinstance(node, list) and node and node[0] == "c" and isinstance(view(irv.Const, node).value, str):
        return str(view(irv.Const, node).value)
    return None
