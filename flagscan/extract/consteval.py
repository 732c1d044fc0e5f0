"""extract: static evaluation of constant expressions in SGLang source (never imports it)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from flagscan.extract.modules import ModuleInfo, SourceIndex
from flagscan.pybuiltins import PURE_FUNCTIONS, REGISTRATION_FUNCTIONS, REGISTRATION_METHODS

_Comprehension = cst.ListComp | cst.GeneratorExp | cst.SetComp


class NotStatic(Exception):
    """The expression depends on something only known at run time."""


@dataclass(frozen=True, slots=True)
class ClassRef:
    module: str
    name: str

    def __repr__(self) -> str:
        return f"<class {self.module}.{self.name}>"


@dataclass(frozen=True, slots=True)
class FuncRef:
    module: str
    name: str
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class ModuleRef:
    name: str


@dataclass(frozen=True, slots=True)
class EnumMember:
    owner: str
    name: str
    value: Any


@dataclass(frozen=True, slots=True)
class Opaque:
    """A value that exists but cannot be known statically (an imported class, a call result)."""

    text: str


# The builtins and methods the registration's values may use: the shared table's subset for
# the CLI registration (flagscan/pybuiltins.py); reversed(...) as the list it is iterated into.
_BUILTINS: dict[str, Any] = {
    **{name: PURE_FUNCTIONS[name] for name in sorted(REGISTRATION_FUNCTIONS)},
    "reversed": lambda x: list(reversed(x)),
    "None": None, "True": True, "False": False,
}
_SAFE_METHODS = REGISTRATION_METHODS
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "enum.Enum", "enum.IntEnum", "enum.StrEnum"}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.BitOr: operator.or_, cst.BitAnd: operator.and_, cst.Power: operator.pow,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge, cst.Is: operator.is_, cst.IsNot: operator.is_not,
    cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b,
}


@dataclass(slots=True)
class Scope:
    module: ModuleInfo
    locals: dict[str, Any] = field(default_factory=dict)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


CallHook = Callable[["Evaluator", FuncRef, list[Any], dict[str, Any]], Any]


class Evaluator:
    """Evaluates expressions over module-level constants, enums, class attributes and
    simple helper functions, following imports across the tree.

    `hooks` give meaning to calls the source defines dynamically (from rule data),
    keyed by the function's dotted name or its bare name.
    """

    def __init__(self, index: SourceIndex, hooks: dict[str, CallHook] | None = None,
                 primitives: dict[str, Any] | None = None) -> None:
        self.index = index
        self.hooks = hooks or {}
        self.primitives = primitives or {}
        self._active: set[tuple[str, str]] = set()
        self.notes: list[str] = []
        self._cache: dict[tuple[str, str], Any] = {}

    # -- entry points ---------------------------------------------------------
    def value(self, node: cst.BaseExpression, scope: Scope) -> Any:
        """Evaluate to a plain value or raise NotStatic."""
        result = self.eval(node, scope)
        if not _is_plain(result):
            raise NotStatic(scope.module.code(node))
        return _plainify(result)

    def lookup(self, module: str, name: str) -> Any:
        info = self.index.module(module)
        if info is None:
            # `from pkg import sub` where sub is a module.
            if self.index.module_file(f"{module}.{name}") is not None:
                return ModuleRef(f"{module}.{name}")
            return Opaque(f"{module}.{name}")
        return self._global(info, name)

    # -- names ----------------------------------------------------------------
    def _global(self, info: ModuleInfo, name: str) -> Any:
        key = (info.name, name)
        if key in self._cache:
            return self._cache[key]
        if key in self._active:
            return Opaque(name)
        self._active.add(key)
        try:
            result = self._global_uncached(info, name)
        finally:
            self._active.discard(key)
        self._cache[key] = result
        return result

    def _global_uncached(self, info: ModuleInfo, name: str) -> Any:
        if name in info.assigns:
            try:
                node = self._live_binding(info, name)
                result = self.eval(node, Scope(info))
                for aug in info.augments.get(name, ()):
                    if self._guard(info, aug, name):
                        result = self._augment(result, aug, Scope(info))
                return result
            except NotStatic:
                return Opaque(name)
        if name in info.classes:
            return ClassRef(info.name, name)
        if name in info.functions:
            return FuncRef(info.name, name)
        if name in info.imports:
            module, attr = info.imports[name]
            if attr is None:
                return ModuleRef(module)
            return self.lookup(module, attr)
        if name in _BUILTINS:
            return _BUILTINS[name]
        return Opaque(name)

    def _live_binding(self, info: ModuleInfo, name: str) -> cst.BaseExpression:
        """The last binding whose module-level `if` guards hold; an undecidable guard
        makes the value undecidable."""
        for node in reversed(info.assigns[name]):
            tests = info.guards.get(node, ())
            try:
                if all(self.value(t, Scope(info)) for t in tests):
                    return node
            except NotStatic:
                raise NotStatic(name) from None
        raise NotStatic(name)

    def _guard(self, info: ModuleInfo, node: cst.CSTNode, name: str) -> bool:
        """Whether a module-level mutation applies. One under a run-time condition
        (an environment variable, a device query) is left out and noted, as the
        value a fresh process with no such setting computes."""
        tests = info.guards.get(node, ())
        try:
            return all(self.value(t, Scope(info)) for t in tests)
        except NotStatic:
            note = (f"{info.relpath}:{info.line(node)}: {name} is changed under a run-time "
                    f"condition ({' and '.join(info.code(t) for t in tests)}); read as if it were false")
            if note not in self.notes:
                self.notes.append(note)
            return False

    def _augment(self, value: Any, node: cst.CSTNode, scope: Scope) -> Any:
        if isinstance(node, cst.AugAssign):
            op = _BINOPS.get(type(node.operator).__mro__[0])
            if op is None:
                for k, v in _BINOPS.items():
                    if type(node.operator).__name__.replace("Assign", "") == k.__name__:
                        op = v
            if op is None:
                raise NotStatic(scope.module.code(node))
            return op(value, self._plain(self.eval(node.value, scope), node, scope))
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        args = [self._plain(self.eval(a.value, scope), a, scope) for a in node.args]
        value = type(value)(value) if isinstance(value, (list, set, dict)) else value
        getattr(value, node.func.attr.value)(*args)
        return value

    def _plain(self, value: Any, node: cst.CSTNode, scope: Scope) -> Any:
        if isinstance(value, (Opaque, ClassRef, FuncRef, ModuleRef)):
            raise NotStatic(scope.module.code(node))
        return value

    # -- expressions ----------------------------------------------------------
    def eval(self, node: cst.BaseExpression, scope: Scope) -> Any:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            raise NotStatic(scope.module.code(node))
        return method(node, scope)

    def _eval_Integer(self, node: cst.Integer, scope: Scope) -> Any:
        return node.evaluated_value

    def _eval_Float(self, node: cst.Float, scope: Scope) -> Any:
        return node.evaluated_value

    def _eval_SimpleString(self, node: cst.SimpleString, scope: Scope) -> Any:
        return node.evaluated_value

    def _eval_ConcatenatedString(self, node: cst.ConcatenatedString, scope: Scope) -> Any:
        return self.eval(node.left, scope) + self.eval(node.right, scope)

    def _eval_FormattedString(self, node: cst.FormattedString, scope: Scope) -> Any:
        out = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                out.append(part.value)
            else:
                part = cst.ensure_type(part, cst.FormattedStringExpression)   # libcst's other f-string part
                value = self._plain(self.eval(part.expression, scope), part, scope)
                conv = part.conversion
                out.append(repr(value) if conv == "r" else str(value))
        return "".join(out)

    def _eval_Name(self, node: cst.Name, scope: Scope) -> Any:
        if node.value in scope.locals:
            return scope.locals[node.value]
        return self._global(scope.module, node.value)

    def _eval_Attribute(self, node: cst.Attribute, scope: Scope) -> Any:
        base = self.eval(node.value, scope)
        attr = node.attr.value
        dotted = _dotted_name(node)
        if dotted in self.primitives:
            return self.primitives[dotted]
        if isinstance(base, ModuleRef):
            return self.lookup(base.name, attr)
        if isinstance(base, ClassRef):
            return self.class_attr(base, attr)
        if isinstance(base, EnumMember):
            if attr == "name":
                return base.name
            if attr == "value":
                return base.value
        if isinstance(base, (str, dict, list, tuple)) and attr in _SAFE_METHODS.get(type(base), ()):
            return getattr(base, attr)
        return Opaque(scope.module.code(node))

    def class_attr(self, ref: ClassRef, attr: str) -> Any:
        info = self.index.module(ref.module)
        if info is None or ref.name not in info.classes:
            return Opaque(f"{ref.name}.{attr}")
        cls = info.classes[ref.name]
        if self.is_enum(ref) and attr in self.enum_names(ref):
            return EnumMember(ref.name, attr, self._class_body_value(info, cls, attr))
        for stmt in _class_statements(cls):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == attr:
                return FuncRef(ref.module, attr, owner=ref.name)
        try:
            return self._class_body_value(info, cls, attr)
        except NotStatic:
            return Opaque(f"{ref.name}.{attr}")

    def _class_body_value(self, info: ModuleInfo, cls: cst.ClassDef, attr: str) -> Any:
        """Evaluate class-body assignments in order, so later ones see earlier names."""
        local: dict[str, Any] = {}
        found = False
        for stmt in _class_statements(cls):
            names: list[str] = []
            value = None
            if isinstance(stmt, cst.Assign):
                names = [t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)]
                value = stmt.value
            elif isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name) and stmt.value is not None:
                names, value = [stmt.target.value], stmt.value
            if value is None:
                continue
            try:
                result = self.eval(value, Scope(info, dict(local)))
            except NotStatic:
                if attr in names:
                    raise
                result = Opaque(attr)
            for n in names:
                local[n] = result
            found = found or attr in names
            if attr in names:
                last = result
        if not found:
            raise NotStatic(attr)
        return last

    def is_enum(self, ref: ClassRef) -> bool:
        info = self.index.module(ref.module)
        if info is None or ref.name not in info.classes:
            return False
        for base in info.classes[ref.name].bases:
            text = _dotted_name(base.value)
            if text in _ENUM_BASES or text.split(".")[-1] in _ENUM_BASES:
                return True
            value = self.eval(base.value, Scope(info)) if text else None
            if isinstance(value, ClassRef) and value != ref and self.is_enum(value):
                return True
        return False

    def enum_names(self, ref: ClassRef) -> list[str]:
        info = self.index.module(ref.module)
        assert info is not None
        names = []
        for stmt in _class_statements(info.classes[ref.name]):
            if isinstance(stmt, cst.Assign):
                for t in stmt.targets:
                    if isinstance(t.target, cst.Name) and not t.target.value.startswith("_"):
                        names.append(t.target.value)
        return names

    def _iterate(self, value: Any, node: cst.CSTNode, scope: Scope) -> list[Any]:
        if isinstance(value, ClassRef) and self.is_enum(value):
            return [self.class_attr(value, n) for n in self.enum_names(value)]
        value = self._plain(value, node, scope)
        if isinstance(value, (list, tuple, set, frozenset, dict, str, type({}.keys()), type({}.values()))):
            return list(value)
        raise NotStatic(scope.module.code(node))

    def _eval_List(self, node: cst.List, scope: Scope) -> Any:
        return self._elements(node.elements, scope)

    def _eval_Tuple(self, node: cst.Tuple, scope: Scope) -> Any:
        return tuple(self._elements(node.elements, scope))

    def _eval_Set(self, node: cst.Set, scope: Scope) -> Any:
        return set(self._elements(node.elements, scope))

    def _elements(self, elements: Sequence[cst.BaseElement], scope: Scope) -> list[Any]:
        out: list[Any] = []
        for el in elements:
            if isinstance(el, cst.StarredElement):
                out.extend(self._iterate(self.eval(el.value, scope), el, scope))
            else:
                out.append(self.eval(el.value, scope))
        return out

    def _eval_Dict(self, node: cst.Dict, scope: Scope) -> Any:
        out: dict[Any, Any] = {}
        for el in node.elements:
            if isinstance(el, cst.StarredDictElement):
                out.update(self._plain(self.eval(el.value, scope), el, scope))
                continue
            el = cst.ensure_type(el, cst.DictElement)   # libcst's other dict element
            key = self._plain(self.eval(el.key, scope), el.key, scope)
            try:
                out[key] = self.eval(el.value, scope)
            except NotStatic:
                # Keys stay usable (`list(X.keys())`) even when values are not.
                out[key] = Opaque(scope.module.code(el.value))
        return out

    def _eval_UnaryOperation(self, node: cst.UnaryOperation, scope: Scope) -> Any:
        value = self._plain(self.eval(node.expression, scope), node, scope)
        if isinstance(node.operator, cst.Minus):
            return -value
        if isinstance(node.operator, cst.Plus):
            return +value
        if isinstance(node.operator, cst.Not):
            return not value
        raise NotStatic(scope.module.code(node))

    def _eval_BinaryOperation(self, node: cst.BinaryOperation, scope: Scope) -> Any:
        op = _BINOPS.get(type(node.operator))
        if op is None:
            raise NotStatic(scope.module.code(node))
        left = self._plain(self.eval(node.left, scope), node.left, scope)
        right = self._plain(self.eval(node.right, scope), node.right, scope)
        try:
            return op(left, right)
        except Exception as exc:  # a type error in SGLang's constant: not ours to guess
            raise NotStatic(scope.module.code(node)) from exc

    def _eval_BooleanOperation(self, node: cst.BooleanOperation, scope: Scope) -> Any:
        left = self._plain(self.eval(node.left, scope), node.left, scope)
        if isinstance(node.operator, cst.And):
            return self.eval(node.right, scope) if left else left
        return left if left else self.eval(node.right, scope)

    def _eval_Comparison(self, node: cst.Comparison, scope: Scope) -> Any:
        left = self._plain(self.eval(node.left, scope), node.left, scope)
        for target in node.comparisons:
            right = self._plain(self.eval(target.comparator, scope), target.comparator, scope)
            if not _CMPOPS[type(target.operator)](left, right):
                return False
            left = right
        return True

    def _eval_IfExp(self, node: cst.IfExp, scope: Scope) -> Any:
        test = self._plain(self.eval(node.test, scope), node.test, scope)
        return self.eval(node.body if test else node.orelse, scope)

    def _eval_Subscript(self, node: cst.Subscript, scope: Scope) -> Any:
        base = self._plain(self.eval(node.value, scope), node.value, scope)
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            raise NotStatic(scope.module.code(node))
        key = self._plain(self.eval(node.slice[0].slice.value, scope), node, scope)
        try:
            return base[key]
        except Exception as exc:
            raise NotStatic(scope.module.code(node)) from exc

    def _comprehension(self, node: _Comprehension, scope: Scope) -> list[Any]:
        results: list[Any] = []
        self._comp_level(node.for_in, node, scope, results)
        return results

    def _comp_level(self, for_in: cst.CompFor, node: _Comprehension, scope: Scope, results: list[Any]) -> None:
        if not isinstance(for_in.target, cst.Name):
            raise NotStatic(scope.module.code(node))
        items = self._iterate(self.eval(for_in.iter, scope), for_in.iter, scope)
        for item in items:
            inner = Scope(scope.module, {**scope.locals, for_in.target.value: item})
            if all(self._plain(self.eval(c.test, inner), c, inner) for c in for_in.ifs):
                if for_in.inner_for_in is not None:
                    self._comp_level(for_in.inner_for_in, node, inner, results)
                else:
                    results.append(self.eval(node.elt, inner))

    def _eval_ListComp(self, node: cst.ListComp, scope: Scope) -> Any:
        return self._comprehension(node, scope)

    def _eval_GeneratorExp(self, node: cst.GeneratorExp, scope: Scope) -> Any:
        return self._comprehension(node, scope)

    def _eval_SetComp(self, node: cst.SetComp, scope: Scope) -> Any:
        return set(self._comprehension(node, scope))

    def _eval_Call(self, node: cst.Call, scope: Scope) -> Any:
        func = self.eval(node.func, scope)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for arg in node.args:
            value = self.eval(arg.value, scope)
            if arg.star == "*":
                args.extend(self._iterate(value, arg, scope))
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if isinstance(func, FuncRef):
            return self.call_function(func, args, kwargs)
        if isinstance(func, ClassRef) and not args and not kwargs:
            return Opaque(scope.module.code(node))
        if _callable_ok(func):
            if func in (list, tuple, set, frozenset, sorted, dict) and args:
                args[0] = self._iterate(args[0], node, scope) if func is not dict else args[0]
            args = [self._plain(a, node, scope) for a in args]
            kwargs = {k: self._plain(v, node, scope) for k, v in kwargs.items()}
            try:
                return func(*args, **kwargs)
            except Exception as exc:
                raise NotStatic(scope.module.code(node)) from exc
        raise NotStatic(scope.module.code(node))

    # -- functions ------------------------------------------------------------
    def call_function(self, ref: FuncRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        qual = f"{ref.module}.{ref.owner + '.' if ref.owner else ''}{ref.name}"
        hook = self.hooks.get(qual) or self.hooks.get(ref.name)
        if hook is not None:
            return hook(self, ref, args, kwargs)
        node = self.function_node(ref)
        info = self.index.module(ref.module)
        if node is None or info is None:
            raise NotStatic(qual)
        params = [p.name.value for p in node.params.params]
        if ref.owner and params and params[0] in ("self", "cls"):
            params = params[1:]
        local = dict(zip(params, args))
        for p in (*node.params.params, *node.params.kwonly_params):
            name = p.name.value
            if name in kwargs:
                local[name] = kwargs[name]
            elif name not in local and p.default is not None:
                local[name] = self.eval(p.default, Scope(info))
        try:
            self._run_block(node.body, Scope(info, local))
        except _Return as ret:
            return ret.value
        raise NotStatic(qual)

    def function_node(self, ref: FuncRef) -> cst.FunctionDef | None:
        info = self.index.module(ref.module)
        if info is None:
            return None
        if ref.owner is None:
            return info.functions.get(ref.name)
        cls = info.classes.get(ref.owner)
        for stmt in _class_statements(cls) if cls is not None else ():
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == ref.name:
                return stmt
        return None

    def _run_block(self, block: cst.BaseSuite, scope: Scope) -> None:
        body = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for stmt in body:
            self._run_statement(stmt, scope)

    def _run_statement(self, stmt: cst.CSTNode, scope: Scope) -> None:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                self._run_small(small, scope)
        elif isinstance(stmt, cst.If):
            test = self._plain(self.eval(stmt.test, scope), stmt.test, scope)
            if test:
                self._run_block(stmt.body, scope)
            elif stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    self._run_statement(stmt.orelse, scope)
                else:
                    self._run_block(stmt.orelse.body, scope)
        else:
            raise NotStatic(scope.module.code(stmt))

    def _run_small(self, small: cst.BaseSmallStatement, scope: Scope) -> None:
        if isinstance(small, cst.Return):
            raise _Return(None if small.value is None else self.eval(small.value, scope))
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return  # docstring
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            scope.locals[small.targets[0].target.value] = self.eval(small.value, scope)
            return
        if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            from flagscan.extract.modules import _dotted
            from flagscan.extract.names import absolute_module

            module = absolute_module(_dotted(small.module), scope.module.package, len(small.relative))
            for alias in small.names:
                local = _dotted(alias.asname.name) if alias.asname else _dotted(alias.name)
                scope.locals[local] = self.lookup(module, _dotted(alias.name))
            return
        raise NotStatic(scope.module.code(small))


def _callable_ok(func: Any) -> bool:
    """Builtins from the allow-list, bound methods of safe types, and rule primitives."""
    if isinstance(func, (Opaque, ClassRef, FuncRef, ModuleRef, EnumMember)):
        return False
    if any(func is b for b in _BUILTINS.values() if callable(b)):
        return True
    owner = getattr(func, "__self__", None)
    if owner is not None and type(owner) in _SAFE_METHODS:
        return True
    return getattr(func, "__name__", "") == "<lambda>"


def _class_statements(cls: cst.ClassDef) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else []
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
        else:
            out.append(stmt)
    return out


def class_statements(cls: cst.ClassDef) -> list[cst.CSTNode]:
    return _class_statements(cls)


def _dotted_name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def _is_plain(value: Any) -> bool:
    if isinstance(value, (Opaque, ClassRef, FuncRef, ModuleRef)) or callable(value):
        return False
    if isinstance(value, EnumMember):
        return _is_plain(value.value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return value is None or isinstance(value, (str, int, float, bool))


def _plainify(value: Any) -> Any:
    """JSON-shaped copy: enum members become their value, sets sorted lists."""
    if isinstance(value, EnumMember):
        return _plainify(value.value)
    if isinstance(value, (set, frozenset)):
        items = [_plainify(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, (list, tuple)):
        return [_plainify(v) for v in value]
    if isinstance(value, dict):
        return {k: _plainify(v) for k, v in value.items()}
    return value
