"""evaluate: calls in the abstract interpreter (functions, methods, instantiation, decorators)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.base import Budget, Dead
from flagscan.evaluate.interp.expressions import model_value
from flagscan.evaluate.interp.state import OPEN, Chain, Event, State, join_states, join_values, same
from flagscan.evaluate.interp.values import (
    BoundMethod,
    Builtin,
    ClassVal,
    ConfigView,
    ContextManagerFn,
    EnumMember,
    ExcVal,
    External,
    FuncVal,
    GeneratorVal,
    GenericAlias,
    LambdaVal,
    Memo,
    ModuleVal,
    Obj,
    Outside,
    OutsideAttr,
    PartialVal,
    Raised,
    Unknown,
    has_unknown,
    unknown_of,
)
from flagscan.extract.reads_walk import nested_blocks
from flagscan.facts import ir
from flagscan.facts.ir import Node, simple_name, view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
else:
    InterpreterParts = object  # the Protocol the part is checked against (parts.py); none at run time


class CallsMixin(InterpreterParts):
    """Calls of the Interpreter: functions, methods, classes, dataclass fields and decorators."""

    def decorate(self, deco: Any, fn: Any, state: State, module: ModuleVal) -> Any:
        name = simple_name(deco)
        if name in ("staticmethod", "classmethod", "property", "cached_property") and isinstance(fn, FuncVal):
            # functools.cached_property: read as an attribute, as a property is (computed on first read)
            fn.kind = "property" if name == "cached_property" else name
            return fn
        if name in ("setter", "deleter", "getter"):
            return None  # a property's setter replaces nothing we evaluate
        value = self.eval(deco, state, module)
        if isinstance(value, (FuncVal, BoundMethod, PartialVal, LambdaVal, Builtin, External, Memo)):
            result = self.call(value, [fn], {}, state, module)
            # An unknown decorator (torch.compile, triton.jit...) keeps the function.
            return fn if isinstance(result, Unknown) or result is None else result
        return fn

    def bind(self, value: Any, obj: Obj, state: State, module: ModuleVal) -> Any:
        if isinstance(value, FuncVal):
            if value.kind == "property":
                return self.call(value, [obj], {}, state, module)
            if value.kind == "staticmethod":
                return value
            if value.kind == "classmethod":
                return BoundMethod(value, obj.cls)
            return BoundMethod(value, obj)
        if isinstance(value, ContextManagerFn):
            return BoundMethod(value, obj)   # a method under @contextmanager
        return value

    def eval_call(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        call = view(ir.Call, node)
        func = self.eval(call.func, state, module, line)
        args: list[Any] = []
        rest: Unknown | None = None   # a last `*x` whose elements are not known
        for i, a in enumerate(call.args):
            if isinstance(a, list) and a and a[0] == "*" and len(a) == 2 and isinstance(a[1], list):
                _star, starred_ir = a   # ["*", expr]
                starred = self.eval(starred_ir, state, module, line)
                items = self.iterate(starred, state, module)
                if items is None and i == len(call.args) - 1 and self._takes_rest(func, state):
                    rest = unknown_of(starred, why=f"*{self._text(starred_ir)}")
                    continue
                if items is None:
                    return self._unfollowed_call(func, node, state, module, line, "*")
                args.extend(items)
            else:
                args.append(self.eval(a, state, module, line))
        kwargs: dict[str, Any] = {}
        for key, expr in call.keywords:
            value = self.eval(expr, state, module, line)
            if key == "**":
                if isinstance(value, dict) and OPEN not in value:
                    kwargs.update({str(k): v for k, v in value.items()})
                elif self._binds_keywords(func, state):
                    kwargs[_KW_REST] = _KwRest(unknown_of(value, why=f"**{self._text(expr)}"))
                else:
                    return self._unfollowed_call(func, node, state, module, line, "**")
            else:
                kwargs[key] = value
        if rest is not None:
            fn = self.deref(func, state)
            if isinstance(fn, BoundMethod):
                fn, args = fn.func, [fn.self_obj] + args
            return self.call_function(fn, args + [_Rest(rest)], kwargs, state)
        return self.call(func, args, kwargs, state, module, node=node, line=line)

    def _takes_rest(self, func: Any, state: State) -> bool:
        """Whether a call with known positional arguments and then `*x` of unknown length can be
        made: a function of the tree binds the known ones first, then each positional parameter
        left to an element of x or its default, and its own `*args` to the rest
        (`load_jit(name, *args, ...)` into `def load_jit(*args, ...)`; 0.5.10 deepseek_v2.py
        `self.forward_normal_core(*inner_state)`, the tuple a prepare function returned)."""
        fn = self.deref(func, state)
        if isinstance(fn, BoundMethod) and isinstance(fn.func, FuncVal) and fn.func.kind != "staticmethod":
            fn = fn.func
        return isinstance(fn, FuncVal) and fn.qualname not in self.declare_functions \
            and fn.qualname not in self.world.sglang

    def _binds_keywords(self, func: Any, state: State) -> bool:
        """Whether a call with `**x`, x not known, can still be made: a function of the tree binds
        what x may hold to its parameters like any other keyword (see bind_params)."""
        fn = self.deref(func, state)
        if isinstance(fn, BoundMethod):
            fn = fn.func
        if isinstance(fn, ClassVal) and not fn.is_enum and not _is_exception(fn):
            # a class of the tree built by its own `__init__` or as a dataclass or msgspec Struct
            # (0.5.23 watermarking/config.py `WatermarkServerConfig(**raw)`; 0.5.10 rotary_embedding/
            # factory.py `YaRNScalingMRotaryEmbedding(..., **extra_kwargs)`): the same binding
            found, init = fn.lookup("__init__")
            if found:
                fn = init
            elif fn.is_dataclass or any(c.is_dataclass for c in fn.mro()):
                return True
        return isinstance(fn, FuncVal) and fn.qualname not in self.declare_functions \
            and fn.qualname not in self.world.sglang

    def _unfollowed_call(self, func: Any, node: Any, state: State, module: ModuleVal, line: int, star: str) -> Any:
        """A call whose `*`/`**` arguments are not known is not made: analysed code it would
        run (and what that writes) is not followed."""
        func = self.deref(func, state)
        if isinstance(func, ClassVal) and not _runs_code_on_construction(func):
            # a class built by its outside base alone (a typing.NamedTuple): no analysed code runs,
            # the instance's fields are what the outside base keeps of arguments not known
            obj = self.instantiate(func, [], {}, state, module, line)
            if isinstance(obj, Obj):
                self.handed.add(obj.oid)
                if func.is_namedtuple:   # each field from the arguments not known, or its default
                    attrs = state.writable(obj.oid)
                    for name, _spec in func.dataclass_fields():
                        attrs[name] = Unknown(f"{func.name}.{name} (an argument not known)")
            return obj
        if not isinstance(func, (External, Unknown, Builtin)):
            return self.give_up(f"a call with {star} arguments not known ({self._text(node)[:80]})", module, line,
                                "what the call returns or writes")
        if isinstance(func, External):
            # what outside code returns is a fact of the run, as for any call of it (World.call_external)
            return Unknown(self._text(node), {f"runtime:{func.path}"})
        return Unknown(self._text(node), func.needs if isinstance(func, Unknown) else ())

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], state: State, module: ModuleVal,
             node: Any = None, line: int = 0) -> Any:
        func = self.deref(func, state)
        if isinstance(func, BoundMethod):
            return self.call(func.func, [func.self_obj] + list(args), kwargs, state, module, node, line)
        if isinstance(func, FuncVal):
            if func.qualname in self.declare_functions:
                self.record_declaration(func, args, kwargs, state, module, line)
            self.sites.append((module, line, state.function, state.conds))
            try:
                return self.call_function(func, args, kwargs, state)
            finally:
                self.sites.pop()
        if isinstance(func, Builtin):
            return func.fn(self, state, args, kwargs, module, line)
        if isinstance(func, ClassVal):
            return self.instantiate(func, args, kwargs, state, module, line)
        if isinstance(func, Obj):
            found, method = func.cls.lookup("__call__")
            if found and isinstance(method, FuncVal):   # an instance of an analysed class with its own __call__
                return self.call(BoundMethod(method, func), args, kwargs, state, module, node, line)
        if isinstance(func, PartialVal):
            return self.call(func.func, list(func.args) + list(args), {**func.kwargs, **kwargs}, state, module, node, line)
        if isinstance(func, Memo):
            key = _memo_key(args, kwargs)
            if key is None:
                return self.call(func.func, args, kwargs, state, module, node, line)
            if key not in func.cache:
                start = state.chain
                result = self.call(func.func, args, kwargs, state, module, node, line)
                func.cache[key] = (result, _reads_since(state, start))
            else:
                # Python does not run the function again, but this path's outcome rests on what
                # computing the result read: those reads are this path's too, whichever path
                # happened to fill the cache (else a raise's reads depend on the call order)
                for event in func.cache[key][1]:
                    state.add_event(replace(event, conds=state.conds, assumptions=state.assumptions))
            return func.cache[key][0]
        if isinstance(func, GenericAlias):
            # `OrderedDict[int, Callable]()`, `Foo[T](...)`: Python calls the origin
            return self.call(func.origin, args, kwargs, state, module, node, line)
        if isinstance(func, LambdaVal):
            # its parameters bound as a function's are: by position, by keyword, or their defaults
            # (make_layers calls `layer_fn(idx=idx, prefix=...)` on a model's `lambda idx, prefix: ...`)
            local = dict(func.closure)
            local.update(self.bind_arguments(func.params, func.module, args, kwargs, state))
            saved = state.locals
            state.locals = local
            try:
                return self.eval(func.body, state, func.module)
            finally:
                state.locals = saved
        if isinstance(func, ContextManagerFn):
            gen = self.call(func.func, args, kwargs, state, module, node, line)
            if isinstance(gen, GeneratorVal):
                return GeneratorVal(gen.func, gen.locals, context=True)
            return unknown_of(gen, why=self._text(node) if node else "a contextmanager call")
        if isinstance(func, External):
            if func.path == "builtins.object" and not args and not kwargs:
                # object() is an instance unlike any other: the sentinel idiom (`_MISSING = object()`,
                # `if value is _MISSING: raise`) is then decided by identity, as Python decides it
                return self.new_obj(ClassVal("object", module, None, [func]), state)
            if any(isinstance(a, GeneratorVal) for a in list(args) + list(kwargs.values())):
                # the generator runs when the outside code iterates it: what it writes happens
                args = [self._consumed(a, state, module) for a in args]
                kwargs = {k: self._consumed(v, state, module) for k, v in kwargs.items()}
            result = self.world.call_external(self, func, args, kwargs, state, module, line)
            if isinstance(result, Raised):
                self.record(state, "raise", module, line, value=result.exc.type_name, message=result.exc.message)
                state.raised.append((state.fork(), result.exc))
                raise Dead()
            return result
        if callable(func) and not isinstance(func, type):
            if any(has_unknown(a) for a in args) or any(has_unknown(v) for v in kwargs.values()):
                return unknown_of(*args, *kwargs.values(), why=self._text(node) if node else "call")
            try:
                return func(*args, **kwargs)
            except Exception as exc:  # Python raises here; flagscan does not follow the raise
                return self.give_up(f"{self._text(node) if node else 'a call'} raised {type(exc).__name__}", module, line)
        if isinstance(func, Unknown):
            if func.options and len(func.options) <= _OPTION_CALLS and all(self.callable_value(o) for o in func.options):
                return self._call_options(func, func.options, args, kwargs, state, module, node, line)
            if isinstance(func, OutsideAttr) and func.oid is not None and any(
                    model_value(v) for v in [*args, *kwargs.values()]):
                self.handed.add(func.oid)   # `self.add_module(name, obj)`: the outside base keeps obj
            if isinstance(func, Outside):
                # what a method of outside code's object returns is outside code's object too
                return self.derived(func, self._text(node) if node else func.why, state)
            return Unknown(self._text(node) if node else func.why, func.needs)
        return self.give_up(f"a call of a {type(func).__name__} ({self._text(node) if node else '?'})", module, line)

    def callable_value(self, value: Any) -> bool:
        """Whether `call` follows a call of `value`: analysed code, a builtin, or an instance of an
        analysed class with its own `__call__` (one of several layers: mm_utils.py's
        `input_embedding(input_ids)`, a VocabParallelEmbedding or a PPMissingLayer)."""
        if isinstance(value, Obj):
            found, method = value.cls.lookup("__call__")
            return found and isinstance(method, FuncVal)
        return _callable(value)

    def _consumed(self, value: Any, state: State, module: ModuleVal) -> Any:
        if not isinstance(value, GeneratorVal):
            return value
        items = self.iterate(value, state, module)
        return items if items is not None else Unknown(f"the values of {value.func.qualname}(...)")

    def _call_options(self, func: Unknown, options: tuple[Any, ...], args: list[Any], kwargs: dict[str, Any],
                      state: State, module: ModuleVal, node: Node | None, line: int) -> Any:
        """A call of one of several known functions (looked up under a key not known): each
        is called on its own path, as `if` runs its branches, and the paths are joined. Where
        the options are different functions of the tree (or one bound to different objects),
        each path assumes its callee, needing what the choice needs (a fact of the run when
        the value says nothing): a raise in one callee happens only where that one is called.
        (A builtin's method of one of several strings, `load_format.lower()`, is no choice.)"""

        text = self._text(node) if node else func.why
        paths = []
        choice = _tree_callees(options) > 1
        chosen_texts: set[str] = set()
        for i, option in enumerate(options):
            s = state.fork() if i < len(options) - 1 else state
            if choice:
                chosen = f"{text} calls {_callee_name(option)}"
                chosen_texts.add(chosen)
                s.assumptions = s.assumptions + (chosen,)
                if func.needs:
                    self.assumed_needs[chosen] = self.assumed_needs.get(chosen, frozenset()) | func.needs
            try:
                paths.append((s, self.call(option, list(args), dict(kwargs), s, module, node, line)))
            except Dead:
                pass
            if s is not state and s.raised:
                state.raised.extend(s.raised)
                s.raised = []
        if not paths:
            raise Dead()
        if choice:
            # past the call, which callee ran is the premise of getting here (a path that went
            # on holds it only when the other callees raised: a raise later is not theirs)
            for s, _value in paths:
                s.assumptions = tuple(a for a in s.assumptions if a not in chosen_texts)
        state.adopt(join_states([s for s, _ in paths], text))
        value = join_values([v for _, v in paths], text)
        if isinstance(value, Unknown) and func.needs:
            value = Unknown(value.why, value.needs | func.needs, value.options, value.truth)
        return value

    def record_declaration(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State,
                           module: ModuleVal, line: int) -> None:
        """A declared resolution is a write of each keyword field by the named source."""
        record = args[self.declarations.get("record_arg", 0)] if len(args) > self.declarations.get("record_arg", 0) else None
        source_i = self.declarations.get("source_arg", 1)
        source = args[source_i] if len(args) > source_i else kwargs.get("source")
        if not isinstance(record, Obj):
            return
        saved = state.function
        state.function = source if isinstance(source, str) else state.function
        for name, value in kwargs.items():
            if name != "source":
                self.record(state, "write", module, line, oid=record.oid, attr=name, value=value)
        state.function = saved

    def call_function(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> Any:
        override = self.world.function_override(self, fn, args, kwargs, state)
        if override is not NotImplemented:
            return override
        if self.depth >= self.max_depth:
            return self.bound(f"a call of {fn.qualname} deeper than {self.max_depth} calls", fn.module,
                              fn.ir.get("line", 0), "what it returns or writes")
        levels = sum(1 for _, f in self.stack if f is fn.ir)
        if levels >= 3:
            # Recursion on values flagscan cannot see through would fork without end.
            return self.bound(f"recursion of {fn.qualname} beyond 3 levels", fn.module, fn.ir.get("line", 0),
                              "what it returns or writes")
        if levels and (args or kwargs) and all(isinstance(a, Unknown) for a in [*args, *kwargs.values()]):
            # A recursive call given nothing known learns nothing a level deeper: each level would
            # ask the same of values not known (SGLang's _patch(sub) over a config's sub-configs
            # forks five ways a level)
            # The stop carries what those values need: where that is the model not given, lint
            # asks for the model once instead of a warning per place (fs402_analysis_stopped.py)
            needs = frozenset().union(*(a.needs for a in [*args, *kwargs.values()] if isinstance(a, Unknown)))
            return self.bound(f"recursion of {fn.qualname} on values not known", fn.module, fn.ir.get("line", 0),
                              "what it returns or writes", needs)
        local = self.bind_params(fn, args, kwargs, state)
        if fn.ir.get("generator"):
            return GeneratorVal(fn, local)   # Python runs none of a generator function's body here
        passed = [(n, v) for n, v in local.items() if isinstance(v, (list, dict, set))]
        saved_locals, saved_conds, saved_fn = state.locals, state.conds, state.function
        saved_closure = getattr(state, "closure", None)
        state.locals = local
        state.closure = fn.closure
        state.function = fn.ir["name"]
        state.conds = ()  # conditions are reported per function, where they are written
        self.depth += 1
        self.stack.append((fn.qualname, fn.ir))
        self.frames.append(saved_locals)
        try:
            outcomes = self.exec_block(fn.ir["body"], state, fn.module)
        except Budget:
            self.notes.append(f"{fn.qualname}: analysis budget exhausted")
            self.bound(f"the step budget ({self.call_budget}) in {fn.qualname}", fn.module, fn.ir.get("line", 0),
                       "what it returns or writes")
            outcomes = [("return", state, Unknown(f"{fn.qualname}(...) (budget)"))]
        finally:
            self.depth -= 1
            self.stack.pop()
            self.frames.pop()
        returns = [(s, v) for k, s, v in outcomes if k in ("return", "next")]
        raises = [(s, v) for k, s, v in outcomes if k == "raise"]
        carried = self._carried(fn, passed, returns) if passed and returns else []
        for s, _ in returns + raises:
            s.locals, s.conds, s.function = saved_locals, saved_conds, saved_fn
            s.closure = saved_closure
        state.raised.extend(self.merge_raises(raises) if len(raises) > 1 else raises)
        if not returns:
            state.locals, state.conds, state.function = saved_locals, saved_conds, saved_fn
            state.closure = saved_closure
            raise Dead()
        joined = join_states([s for s, _ in returns], f"{fn.qualname}(...)")
        state.adopt(joined)
        state.locals, state.conds, state.function = saved_locals, saved_conds, saved_fn
        state.closure = saved_closure
        for original, now in carried:
            self._carry(original, now, state)
        value = join_values([v for _, v in returns], f"{fn.qualname}(...)")
        if isinstance(value, Unknown) and not value.needs and len(returns) > 1:
            # the paths differ by tests assumed inside this call: name what those needed
            needs = frozenset().union(*(self.assumed_needs.get(a, frozenset())
                                        for s, _ in returns for a in s.assumptions[len(joined.assumptions):]))
            if needs:
                value = Unknown(value.why, needs, value.options, value.truth)
        return value

    def _carried(self, fn: FuncVal, passed: list[tuple[str, Any]], returns: list[tuple[State, Any]]
                 ) -> list[tuple[Any, Any]]:
        """The containers the caller passed that this call changed on paths it forked: (the
        caller's object, what the paths leave in it). A container a path reads after a fork is
        that path's copy (State.own), so an append there never reached the caller's object
        (`def add(s, c): if c: s.append(2)` left the caller's list as it was). A parameter the
        function may bind to another object is left out (its last value need not be the
        caller's object)."""
        hit = self.rebound.get(id(fn.ir))
        if hit is None or hit[0] is not fn.ir:
            hit = self.rebound[id(fn.ir)] = (fn.ir, _rebound_names(fn.ir))
        rebound = hit[1]
        out = []
        for name, original in passed:
            if name in rebound:
                continue
            finals = [s.locals.get(name, original) for s, _ in returns]
            if all(f is original for f in finals):
                continue
            now = finals[0] if len(finals) == 1 else join_values(finals, f"{fn.qualname}(...)'s {name}")
            if now is not original and not same(now, original):
                out.append((original, now))
        return out

    def _carry(self, original: Any, now: Any, state: State) -> None:
        """What a call left in a container its caller passed, where this path's caller holds it:
        the caller's locals, else the heap's attributes (`add(self.items, c)`; both this path's
        own; a frame further out may be shared with other paths, and is left as it is)."""
        frame = state.locals
        held = [k for k, v in frame.items() if v is original]
        for key in held:
            frame[key] = now
        if held:
            return
        for oid in [oid for oid, attrs in state.heap.items() if any(v is original for v in attrs.values())]:
            attrs = state.writable(oid)
            for key in [k for k, v in attrs.items() if v is original]:
                attrs[key] = now

    def merge_raises(self, raises: list[tuple[State, Any]]) -> list[tuple[State, Any]]:
        """The paths a call raises on, as its caller gets them (a phase that never reports some
        raises may make several of them one path: flagscan/evaluate/startup/run.py)."""
        return raises

    def bind_params(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any], state: State) -> dict[str, Any]:
        return self.bind_arguments(fn.ir["params"], fn.module, args, kwargs, state)

    def bind_arguments(self, params: list[Any], module: ModuleVal, args: list[Any], kwargs: dict[str, Any],
                       state: State) -> dict[str, Any]:
        """The locals a function or lambda with `params` (defaults read in `module`) starts with."""
        local: dict[str, Any] = {}
        rest = list(args)
        extra_kw = dict(kwargs)
        # `**x` with x not known: a parameter no other argument binds may be bound by it
        # (its value is then x's, not known) or keep its default; `**kw` holds what x may hold
        kw_rest = extra_kw.pop(_KW_REST, None)
        star_kw = None
        for name, default, kind in params:
            if kind in ("pos", "kw") and kw_rest is not None and not (kind == "pos" and rest) \
                    and name not in extra_kw:
                local[name] = Unknown(f"{kw_rest.value.why} (keyword {name}, or its default)", kw_rest.value.needs)
                continue
            if kind == "pos":
                if rest and isinstance(rest[0], _Rest):
                    # an element of `*x`, x not known, or (x too short) a keyword or the default
                    local[name] = Unknown(f"{rest[0].value.why} (an element bound to {name})", rest[0].value.needs)
                    extra_kw.pop(name, None)
                elif rest:
                    local[name] = rest.pop(0)
                elif name in extra_kw:
                    local[name] = extra_kw.pop(name)
                elif default is not None:
                    local[name] = self.eval(default, state, module)
                else:
                    local[name] = Unknown(f"argument {name}")
            elif kind == "*":
                if rest and isinstance(rest[-1], _Rest):   # known leading elements, then a tail not known
                    local[name] = Unknown(f"{rest[-1].value.why} (in *{name})", rest[-1].value.needs)
                else:
                    local[name] = tuple(rest)
                rest = []
            elif kind == "kw":
                if name in extra_kw:
                    local[name] = extra_kw.pop(name)
                elif default is not None:
                    local[name] = self.eval(default, state, module)
                else:
                    local[name] = Unknown(f"argument {name}")
            elif kind == "**":
                star_kw = name
        if star_kw is not None:
            local[star_kw] = extra_kw if kw_rest is None else \
                Unknown(f"{kw_rest.value.why} (in **{star_kw})", kw_rest.value.needs)
        return local

    def outside_may_hold(self, obj: Obj, name: str) -> bool:
        """Whether `obj`'s outside base may hold attribute `name` though no analysed class and
        not the instance has it (`hasattr` is then not known). Not here: an outside base's
        attributes are its class's (a msgspec Struct's fields are its own); the startup
        interpreter says otherwise for the bases rules/startup.toml [[outside_base]] lists."""
        return False

    def hand_over(self, obj: Obj, args: list[Any], kwargs: dict[str, Any]) -> None:
        """`obj`'s outside base is given `args`: what it keeps of them, an attribute the outside base
        makes may give back, so when they may be the model's objects, its attributes are not taken
        as outside code's own (expressions.py `getattr`)."""
        if any(model_value(v) for v in [*args, *kwargs.values()]):
            self.handed.add(obj.oid)

    def instantiate(self, cls: ClassVal, args: list[Any], kwargs: dict[str, Any], state: State,
                    module: ModuleVal, line: int) -> Any:
        if any(c.name in ("Exception", "BaseException") or _is_exception(c) for c in cls.mro()):
            return ExcVal(cls.name, args[0] if args else "", cls)
        if cls.is_enum:
            given = self.deref(args[0], state) if args else None
            if isinstance(given, Unknown) and given.options:
                # one of a few known values: the member of each (all found), as Python looks each up
                members = [_enum_member(cls, o) for o in given.options]
                if all(m is not None for m in members):
                    return join_values(members, f"{cls.name}({given.why})")
            member = _enum_member(cls, given) if args else None
            return member if member is not None else Unknown(f"{cls.name}({args[0] if args else ''})")
        obj = self.new_obj(cls, state)
        if cls.has_outside_base():
            self.hand_over(obj, args, kwargs)   # the outside base's constructor may keep them (a NamedTuple)
        found, init = cls.lookup("__init__")
        if found and isinstance(init, FuncVal):
            self.call(BoundMethod(init, obj), args, kwargs, state, module)
        elif cls.is_dataclass or any(c.is_dataclass for c in cls.mro()):
            self.dataclass_init(cls, obj, args, kwargs, state, module, line)
        return obj

    def dataclass_init(self, cls: ClassVal, obj: Obj, args: list[Any], kwargs: dict[str, Any], state: State,
                       module: ModuleVal, line: int) -> None:
        rest = list(args)
        values: dict[str, Any] = {}
        kw_rest = kwargs.get(_KW_REST)   # `**x`, x not known: a field may come from it or keep its default
        for name, spec in cls.dataclass_fields():
            if rest:
                values[name] = rest.pop(0)
            elif name in kwargs:
                values[name] = kwargs[name]
            elif kw_rest is not None:
                values[name] = Unknown(f"{kw_rest.value.why} (keyword {name}, or its default)", kw_rest.value.needs)
            else:
                values[name] = self.spec_default(spec, state, f"{cls.name}.{name}")
        attrs = state.writable(obj.oid)
        attrs.update(values)
        self.snapshots.setdefault(obj.oid, dict(attrs))
        found, post = cls.lookup("__post_init__")
        if found and isinstance(post, FuncVal):
            self.call(BoundMethod(post, obj), [], {}, state, module)

    def spec_default(self, spec: Any, state: State, what: str) -> Any:
        if spec is None:
            return Unknown(f"{what} (no value)")
        if spec[0] == "ir":
            return self.field_default(spec[1], state, spec[2].module)
        if spec[0] == "value":
            return spec[1]
        return self.call(spec[1], [], {}, state, self.current_module or ModuleVal("?"))

    def field_default(self, default: Any, state: State, module: ModuleVal) -> Any:
        """`x: T = value`, `field(default=...)`, `field(default_factory=...)`."""
        if default[0] == "call" and default[1][0] in ("n", "a"):
            fname = default[1][1] if default[1][0] == "n" else default[1][2]
            if fname == "field":
                for key, expr in default[3]:
                    if key == "default":
                        return self.eval(expr, state, module)
                    if key == "default_factory":
                        return self.call(self.eval(expr, state, module), [], {}, state, module)
                return None
        value = self.eval(default, state, module)
        if isinstance(value, ConfigView) and value.origin == "msgspec.field":
            if "default" in value.data:
                return value.data["default"]
            return self.call(value.data.get("default_factory"), [], {}, state, module)
        return value


def _runs_code_on_construction(cls: ClassVal) -> bool:
    """Whether building an instance of `cls` runs analysed code or takes its arguments apart
    (an `__init__`/`__new__`/`__post_init__` of an analysed class, a dataclass, an enum, an
    exception), or the class has no outside base to build it."""
    if cls.is_enum or (cls.is_dataclass and not cls.is_namedtuple) or _is_exception(cls) \
            or not cls.has_outside_base():
        return True
    return any((c.is_dataclass and not c.is_namedtuple) or any(n in c.attrs for n in ("__init__", "__new__",
                                                                                       "__post_init__"))
               for c in cls.mro())


def _is_exception(cls: ClassVal) -> bool:
    for base in cls.bases:
        name = base.name if isinstance(base, (ClassVal, Builtin)) else (base.path if isinstance(base, External) else "")
        if name.endswith(("Error", "Exception")) or name in ("BaseException",):
            return True
    return False


def _reads_since(state: State, start: Chain) -> tuple[Event, ...]:
    """The "read" events added to `state` since its event chain was `start`, oldest first."""
    found: list[Event] = []
    node: Chain | None = state.chain
    while node is not None and node is not start and node.event is not None:
        found.append(node.event)
        node = node.prev
    if node is not start:   # joined paths rebuilt the chain: what is not in `start` is new
        before = {id(e) for e in start}
        found = [e for e in state.chain if id(e) not in before][::-1]
    return tuple(e for e in reversed(found) if e.kind == "read")


def _memo_key(args: list[Any], kwargs: dict[str, Any]) -> tuple[object, ...] | None:
    parts: list[object] = []
    for value in list(args) + sorted(kwargs.items()):
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value in kwargs.items():
            value = value[1]
        if isinstance(value, (str, int, float, bool, type(None))):
            parts.append(value)
        elif isinstance(value, (ClassVal, Obj, FuncVal, External, EnumMember)):
            parts.append(("id", id(value)))
        else:
            return None
    return tuple(parts)


class _KwRest:
    """`**x` of a call with x not known, under the keyword _KW_REST: bound by bind_params."""

    __slots__ = ("value",)

    def __init__(self, value: Unknown) -> None:
        self.value = value


_KW_REST = "**"   # no keyword argument can have this name


class _Rest:
    """The tail of a call's positional arguments, `*x` with x not known: bound to `*args` only."""

    __slots__ = ("value",)

    def __init__(self, value: Unknown) -> None:
        self.value = value


_OPTION_CALLS = 64   # a call through an unknown choice of more functions than this is not followed


def _callable(value: Any) -> bool:
    return isinstance(value, (FuncVal, BoundMethod, ClassVal, PartialVal, LambdaVal, Builtin))


def _enum_member(cls: ClassVal, value: Any) -> EnumMember | None:
    """The member of an Enum class whose value is `value` (None: no such member)."""
    for member in cls.attrs.values():
        if isinstance(member, EnumMember) and same(member.value, value):
            return member
    return None


def _callee_name(option: Any) -> str:
    """How an assumption names one of several callees (a function, a bound method, a class)."""
    target = option.func if isinstance(option, BoundMethod) else option
    return str(getattr(target, "qualname", None) or getattr(target, "name", None) or f"option {type(target).__name__}")


def _tree_callees(options: tuple[Any, ...]) -> int:
    """How many different callees of the tree (a function, a class, a method and the object it is
    bound to) the options are; builtins count for none."""
    seen: set[tuple[int, int]] = set()
    for option in options:
        target, bound = (option.func, id(option.self_obj)) if isinstance(option, BoundMethod) else (option, 0)
        if isinstance(target, (FuncVal, ClassVal)):
            seen.add((id(target), bound))
    return len(seen)


def _rebound_names(func: dict[str, Any]) -> frozenset[str]:
    """The names a function's body may bind (assignment, augmented assignment, for and with
    targets, handlers, imports, walrus, nested defs and classes, del): a parameter among them
    may end as another object than the one passed."""
    names: set[str] = set()

    def targets(node: Any) -> None:
        names.update(t[1] for t in ir.target_nodes(node) if ir.is_kind(t, "n"))

    def walrus(node: Any) -> None:
        if isinstance(node, list):
            if node and node[0] == "walrus" and len(node) > 1 and isinstance(node[1], str):
                names.add(node[1])
            for part in node:
                if isinstance(part, list):
                    walrus(part)

    def block(body: list[Any]) -> None:
        for stmt in body:
            kind = stmt[0] if isinstance(stmt, list) and stmt else ""
            if kind == "assign":
                for t in view(ir.Assign, stmt).targets:
                    targets(t)
            elif kind == "aug":
                targets(view(ir.AugAssign, stmt).target)
            elif kind == "for":
                targets(view(ir.For, stmt).target)
            elif kind == "with":
                for item in view(ir.With, stmt).items:
                    if len(item) > 1 and item[1] is not None:
                        targets(item[1])
            elif kind == "try":
                for handler in view(ir.Try, stmt).handlers:
                    if handler[1]:
                        names.add(handler[1])
            elif kind == "import":
                for entry in stmt[2]:
                    if isinstance(entry, list) and entry and isinstance(entry[0], str):
                        names.add(entry[0].split(".")[0])
            elif kind in ("def", "class"):
                named = view(ir.Def, stmt).func if kind == "def" else view(ir.ClassDef, stmt).cls
                if isinstance(named, dict) and named.get("name"):
                    names.add(named["name"])
                continue
            elif kind == "del":
                for t in stmt[2] if len(stmt) > 2 and isinstance(stmt[2], list) else []:
                    targets(t)
            walrus(stmt)
            for nested in nested_blocks(stmt):
                block(nested)

    block(func.get("body", []))
    return frozenset(names)
