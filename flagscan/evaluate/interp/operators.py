"""evaluate: operators in the abstract interpreter (arithmetic, boolean, comparison, membership)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from packaging.version import Version as _VERSION

from flagscan.evaluate.interp.base import _BIN, _CMP, PLAIN, falsy_unknown, truth
from flagscan.evaluate.interp.state import OPEN, State, key_needs, may_match, same
from flagscan.evaluate.interp.values import (
    BoundMethod,
    Builtin,
    ClassVal,
    ConfigView,
    EnumMember,
    EnvView,
    ExcVal,
    External,
    Fresh,
    FuncVal,
    GenericAlias,
    Maybe,
    ModuleVal,
    Obj,
    Unknown,
    has_unknown,
    mixin_of_enum,
    unknown_of,
)
from flagscan.facts import ir
from flagscan.facts.ir import Node, view

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
else:
    InterpreterParts = object  # the Protocol the part is checked against (parts.py); none at run time


class OperatorsMixin(InterpreterParts):
    """Operators of the Interpreter: arithmetic, boolean, comparison and membership."""

    # -- operators -----------------------------------------------------------------
    def binop(self, op: str, left: Any, right: Any, state: State | None = None, module: ModuleVal | None = None) -> Any:
        """`left op right`; an analysed class's own operator method (`__or__`, `__radd__`...) is called
        (given the `state` it runs on: model_loader/utils.py's `WeightsMapper.__or__`)."""
        if state is not None and module is not None and op in _DUNDER and (isinstance(left, Obj) or isinstance(right, Obj)):
            result = self._operator_method(op, left, right, state, module)
            if result is not NotImplemented:
                return result
        if op == "|" and isinstance(left, (ClassVal, External, Builtin, GenericAlias)) and (
                right is None or isinstance(right, (ClassVal, External, Builtin, GenericAlias))):
            none = External("builtins.NoneType")
            return GenericAlias(External("types.UnionType"), (left, none if right is None else right))
        if isinstance(left, ConfigView):
            result = self.world.binop(op, left, right)
            if result is not NotImplemented:
                return result
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            if isinstance(left, Fresh):
                left.forget()   # `x += [...]` extends the new list itself
            opts = _combine_options(left, right, _BIN.get(op))
            if opts is None and op == "*" and (isinstance(left, list) or isinstance(right, list)):
                # a list repeated a number of times not known (0.5.20 cuda_graph_setup.py's
                # `[None] * (max_layer_id + 1)`): a new list, whose length is not known; repeating
                # one element makes every element that very object
                items = left if isinstance(left, list) else right
                return Fresh(f"{op} on unknown", unknown_of(left, right).needs, items[0] if len(items) == 1 else None,
                             len(items) == 1 and not isinstance(items[0], Maybe))
            return opts if opts is not None else unknown_of(left, right, why=f"{op} on unknown")
        if has_unknown(left) or has_unknown(right):
            if op == "+" and isinstance(left, (list, tuple)) and type(left) is type(right):
                return _BIN[op](left, right)   # list + list or tuple + tuple: one type, which mypy cannot see
            return unknown_of(left, right, why=f"{op} on unknown")
        if isinstance(left, External) or isinstance(right, External):
            # a value from outside the tree that the world does not give: unknown, not a defect
            path = left.path if isinstance(left, External) else right.path
            return Unknown(f"{op} on {path}", {f"runtime:{path}"})
        fn = _BIN.get(op)
        if fn is None:
            return self.give_up(f"operator {op}")
        try:
            return fn(left, right)
        except (TypeError, ArithmeticError, ValueError) as exc:
            if state is None or module is None:
                return self.give_up(f"{type(left).__name__} {op} {type(right).__name__} raised {type(exc).__name__}")
            # 0.5.18 pool_configurator.py's `page_size % 128`, with the page size a runtime
            # context publishes where flagscan does not follow; 0.5.10 eplb/expert_location.py's
            # `moe_ep_rank // num_gpus_per_node`, a true 0 on a path SGLang never takes
            return self._raise_on_assumed_path(op, left, right, exc, state, module, 0, None)
        except Exception as exc:  # Python raises here; flagscan does not follow the raise
            return self.give_up(f"{type(left).__name__} {op} {type(right).__name__} raised {type(exc).__name__}")

    def _raise_on_assumed_path(self, op: str, left: Any, right: Any, exc: Exception, state: State,
                               module: ModuleVal, line: int, options: tuple[Any, ...] | None) -> Unknown:
        """Python raises on `left op right` (TypeError on `None < 4096` or `None % 128`,
        ZeroDivisionError on `n // 0`), and the program sees it. But a None the model holds may
        stand for a value set where flagscan does not follow (0.5.23 common.py `assert gpu_id <
        num_gpus`, with runtime_context's device gpu_id published by the launcher), and a 0 may be
        reached only on a path the analysis assumes (a list of candidates not known): taken as
        certain, that is a startup crash SGLang never has. So the raise happens on a path that
        assumes it (a fact of the run), and the other path goes on with a value not known
        (`options`: the values it may have)."""
        text = f"{type(left).__name__} {op} {type(right).__name__} raises {type(exc).__name__}"
        failing = state.fork()
        failing.assumptions = failing.assumptions + (text,)
        state.assumptions = state.assumptions + (f"not ({text})",)
        needs = frozenset({f"runtime:{text}"})
        self.assumed_needs[text] = self.assumed_needs[f"not ({text})"] = needs
        raised = ExcVal(type(exc).__name__, str(exc))
        self.record(failing, "raise", module, line or self.line, value=raised.type_name, message=raised.message)
        state.raised.append((failing, raised))
        return Unknown(f"{left!r} {op} {right!r}", needs, options)

    def eval_binary(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        op, left, right = view(ir.BinOp, node)
        return self.binop(op, self.eval(left, state, module, line), self.eval(right, state, module, line),
                          state, module)

    def _operator_method(self, op: str, left: Any, right: Any, state: State, module: ModuleVal) -> Any:
        """Python's order: left's `__op__`, then right's `__rop__`; NotImplemented when neither
        analysed class defines one (or both return NotImplemented)."""
        name = _DUNDER[op]
        for obj, other, method in ((left, right, f"__{name}__"), (right, left, f"__r{name}__")):
            if not isinstance(obj, Obj):
                continue
            found, fn = obj.cls.lookup(method)
            if found and isinstance(fn, FuncVal):
                result = self.call(BoundMethod(fn, obj), [other], {}, state, module)
                if result is not None:   # `return NotImplemented` (the builtins table has it as None)
                    return result
        return NotImplemented

    def eval_boolean(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        op, operands = view(ir.BoolOp, node)
        result: Any = None
        pending_unknown: Unknown | None = None
        for operand in operands:
            value = self.eval(operand, state, module, line)
            t = truth(value)
            if op == "and":
                if t is False:
                    if pending_unknown is not None:
                        return falsy_unknown(pending_unknown.why, pending_unknown.needs, False) if not isinstance(value, PLAIN) or value not in (False, None, 0, "") else _maybe(value, pending_unknown)
                    return value
                if t is None:
                    pending_unknown = unknown_of(value, why=self._text(operand)) if pending_unknown is None else pending_unknown
            else:
                if t is True:
                    if pending_unknown is not None:
                        return falsy_unknown(pending_unknown.why, pending_unknown.needs, True)
                    return value
                if t is None:
                    pending_unknown = unknown_of(value, why=self._text(operand)) if pending_unknown is None else pending_unknown
            result = value
        if pending_unknown is not None:
            return Unknown(pending_unknown.why, pending_unknown.needs)
        return result

    def eval_compare(self, node: Node, state: State, module: ModuleVal, line: int) -> Any:
        left_ir, comparisons = view(ir.Compare, node)
        left = self.eval(left_ir, state, module, line)
        result: Any = True
        for op, right_ir in comparisons:
            right = self.eval(right_ir, state, module, line)
            r = self.compare(op, left, right, state, module, line)
            t = truth(r)
            if t is False:
                return False
            if t is None:
                result = r if result is True else unknown_of(result, r)
            left = right
        return result

    def narrow(self, test_ir: Any, state: State, module: ModuleVal, holds: bool) -> None:
        """On a path that assumed `test_ir` (an unknown test) `holds` (or not), a local name the
        test decides for some of its options keeps only the options that agree: past
        `if x is not None:` (x one of None or a tuple) x is the tuple, as Python has it there.
        Only `x is None`, `x is not None`, `x`, `not x` on a function's local are narrowed."""
        while test_ir[0] == "un" and test_ir[1] == "not":
            test_ir, holds = test_ir[2], not holds
        none: bool | None = None   # the test is `x is None` (or not): whether x is None on this side
        if test_ir[0] == "n":
            name = test_ir[1]
        elif (test_ir[0] == "cmp" and test_ir[1][0] == "n" and len(test_ir[2]) == 1
              and test_ir[2][0][0] in ("is", "isnot") and test_ir[2][0][1] == ["c", None]):
            name, none = test_ir[1][1], (test_ir[2][0][0] == "is") == holds
        else:
            return
        if state.locals is module.globals or name not in state.locals:
            return
        value = state.locals[name]
        if not isinstance(value, Unknown) or not value.options:
            return
        # an option whose truth is not known itself (an outside object) stays on both sides
        kept = tuple(o for o in value.options
                     if (truth(o) in (holds, None) if none is None else (o is None) == none))
        if kept and len(kept) < len(value.options):
            state.locals[name] = kept[0] if len(kept) == 1 else Unknown(value.why, value.needs, kept, value.truth)

    def _enum_order(self, op: str, left: Any, right: Any, state: State | None, module: ModuleVal | None) -> Any:
        """`a < b` with an enum member: the analysed class's own method for the operator (0.5.20
        forward_batch_info.py CaptureHiddenMode.__lt__), else an IntEnum's int order (its `>`
        is int's: `max(capture_hidden_mode, spec_capture_hidden_mode)`). NotImplemented: not
        decided here (a plain Enum's members have no order: Python raises TypeError)."""
        name = _ORDER_METHODS.get(op)
        if name is None:
            return NotImplemented
        if isinstance(left, EnumMember) and isinstance(left.cls, ClassVal):
            found, method = left.cls.lookup(name)
            if found and isinstance(method, FuncVal):
                if state is None or module is None:
                    return NotImplemented
                return self.call(BoundMethod(method, left), [right], {}, state, module)
        values = []
        for side in (left, right):
            if isinstance(side, EnumMember):
                if not _int_enum(side):
                    return NotImplemented
                side = side.value
            if not isinstance(side, int):
                return NotImplemented
            values.append(side)
        return _CMP[op](values[0], values[1])

    def compare(self, op: str, left: Any, right: Any, state: State | None = None, module: ModuleVal | None = None,
                line: int = 0) -> Any:
        """`left op right`. Where Python raises (`None < 4096`: TypeError), the analysed program
        may raise (given the `state` it runs on): see below why not certainly."""
        if op in ("is", "isnot"):
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                opts = _combine_options(left, right, lambda a, b: (a is b) if a is None or b is None else a == b)
                if opts is not None:
                    return opts if op == "is" else (not opts if isinstance(opts, bool) else opts)
                return unknown_of(left, right, why="identity of unknown")
            same_obj = left is right or (left is None and right is None) or (
                isinstance(left, (bool, EnumMember)) and left == right) or (
                isinstance(left, External) and isinstance(right, External) and left.path == right.path)
            return same_obj if op == "is" else not same_obj
        if op in ("in", "notin"):
            return self.membership(left, right, op == "in")
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            opts = _combine_options(left, right, _CMP.get(op))
            return opts if opts is not None else unknown_of(left, right, why="comparison with unknown")
        if isinstance(left, EnumMember) or isinstance(right, EnumMember):
            eq = left == right
            if not eq and not (isinstance(left, EnumMember) and isinstance(right, EnumMember)):
                # an IntEnum's (StrEnum's) member equals its int (str): `RoutingMethodType.DeepSeekV3 == 2`
                member, other = (left, right) if isinstance(left, EnumMember) else (right, left)
                mixin = mixin_of_enum(member.cls)
                if mixin is not None and isinstance(other, mixin) and not isinstance(other, bool):
                    eq = member.value == other
            if op in ("==", "!="):
                return eq if op == "==" else not eq
            ordered = self._enum_order(op, left, right, state, module)
            return ordered if ordered is not NotImplemented else self.give_up("ordering of enum members")
        if has_unknown(left) or has_unknown(right):
            return unknown_of(left, right, why="comparison with unknown")
        if isinstance(left, _VERSION) and isinstance(right, _VERSION):
            return _CMP[op](left, right)   # packaging.version.Version objects (rules/world.toml "version.parse")
        if not isinstance(left, PLAIN) or not isinstance(right, PLAIN):
            if op in ("==", "!="):
                # one dotted path is one outside object, as for `is` (each `torch.float16` read
                # is a new External)
                eq = left is right or (isinstance(left, External) and isinstance(right, External)
                                       and left.path == right.path)
                return eq if op == "==" else not eq
            if isinstance(left, External) or isinstance(right, External):
                # a value from outside the tree the world does not give (`torch.__version__ <
                # "2.11.0"`, custom_all_reduce_v2.py): unknown, as for arithmetic on it
                path = left.path if isinstance(left, External) else right.path
                return Unknown(f"{op} on {path}", {f"runtime:{path}"})
            return self.give_up(f"ordering {op} of {type(left).__name__} and {type(right).__name__}")
        try:
            return _CMP[op](left, right)
        except TypeError as exc:
            if state is None or module is None:
                return self.give_up(f"comparison {op} of {type(left).__name__} and {type(right).__name__} raised "
                                    "TypeError")
            return self._raise_on_assumed_path(op, left, right, exc, state, module, line, (True, False))
        except Exception as exc:  # Python raises here; flagscan does not follow the raise
            return self.give_up(f"comparison {op} of {type(left).__name__} and {type(right).__name__} raised "
                                f"{type(exc).__name__}")

    def membership(self, item: Any, container: Any, positive: bool) -> Any:
        if isinstance(container, EnvView):
            found = self.world.env_contains(item)
            return found if isinstance(found, Unknown) else found == positive
        if isinstance(container, ConfigView):
            container = container.data
        if isinstance(container, Unknown) and container.options is not None and not isinstance(item, Unknown):
            results = {truth(self.membership(item, o, positive)) for o in container.options}
            if len(results) == 1 and None not in results:
                return results.pop()
        if isinstance(item, Unknown) and item.options is not None and not isinstance(container, Unknown):
            results = {truth(self.membership(o, container, positive)) for o in item.options}
            if len(results) == 1 and None not in results:
                return results.pop()
        if isinstance(item, Unknown) or isinstance(container, Unknown) or not isinstance(container, PLAIN):
            return unknown_of(item, container, why="membership with unknown")
        try:
            if isinstance(container, dict):
                found = item in container
                if may_match(container, item):
                    return Unknown("a key holding values not known in a dict", key_needs(item))
                if not found and OPEN in container:
                    return Unknown(f"{item!r} in a dict written under an unknown key")
                if found and isinstance(container[item], Maybe):
                    return Unknown(f"{item!r} present on some paths")
            else:
                # a number or None raises TypeError here, as Python's `in` does: handled below
                elements = list(container) if not isinstance(container, str) else None  # type: ignore[arg-type]
                if elements is None:
                    found = item in container  # type: ignore[operator]  # str: a substring test
                elif any(same(item, e) or (not isinstance(e, Unknown) and item == e) for e in elements):
                    found = True
                elif any(isinstance(e, Unknown) for e in elements):
                    return Unknown("membership in a list with unknown elements")
                elif isinstance(item, External) and all(
                        not isinstance(e, External) or self.world.distinct_objects(item.path, e.path)
                        for e in elements):
                    found = False  # torch.float8_e4m3fnuz among (torch.float8_e5m2, torch.float8_e4m3fn)
                elif isinstance(item, External) and any(isinstance(e, External) for e in elements):
                    # another dotted path may name the same outside object (`torch.half` is
                    # `torch.float16`): in, or not, as the outside objects decide
                    return Unknown(f"{item.path} among {len(elements)} outside objects", {f"runtime:{item.path}"})
                else:
                    found = False
        except TypeError:
            return self.give_up(f"membership in a {type(container).__name__} raised TypeError")
        return found if positive else not found


_DUNDER = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
           "|": "or", "&": "and", "^": "xor", "<<": "lshift", ">>": "rshift", "@": "matmul"}


def _maybe(value: Any, pending: Unknown) -> Any:
    return falsy_unknown(pending.why, pending.needs, False)


def _combine_options(left: Any, right: Any, fn: Callable[[Any, Any], Any] | None) -> Any:
    """Apply an operator over the candidate values of a joined Unknown, when all agree."""
    if fn is None:
        return None
    lefts = left.options if isinstance(left, Unknown) else (left,)
    rights = right.options if isinstance(right, Unknown) else (right,)
    if lefts is None or rights is None:
        return None
    results = []
    for a in lefts:
        for b in rights:
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return None
            try:
                results.append(fn(a, b))
            except Exception:
                return None
    if results and all(same(results[0], r) for r in results[1:]):
        return results[0]
    needs = (left.needs if isinstance(left, Unknown) else frozenset()) | (
        right.needs if isinstance(right, Unknown) else frozenset())
    return Unknown("combination of unknowns", needs, tuple(results) if len(results) <= 8 else None)


_ORDER_METHODS = {"<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}


def _int_enum(member: EnumMember) -> bool:
    """Whether the member's class is an IntEnum (or IntFlag): its members are ints."""
    if not isinstance(member.cls, ClassVal):
        return False
    return any(isinstance(b, External) and b.path.rsplit(".", 1)[-1] in ("IntEnum", "IntFlag")
               for c in member.cls.mro() for b in c.bases)
