"""evaluate: the startup phase: methods a tree class inherits from a class outside the tree.

SGLang's model classes subclass torch.nn.Module, which the analysed tree does not hold;
its loaders end in `return model.eval()` and the model runner keeps what that returns as
its model (0.5.10 model_loader/loader.py DefaultModelLoader.load_model). Without the
meaning of `eval` the model is not known, and nothing the serving phase calls on it is
followed. rules/startup.toml [[outside_base]] names, per outside class, the methods that
return the object they are called on; any other method of it stays unknown. It also names
the method that calling an instance runs: torch's `Module.__call__` runs `forward`, and
SGLang's models call their layers so (0.5.10 models/llama.py LlamaForCausalLM.forward:
`hidden_states = self.model(input_ids, positions, forward_batch, ...)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from flagscan.evaluate.interp.values import (
    ANY_ATTRIBUTE,
    BoundMethod,
    Builtin,
    ClassVal,
    External,
    FuncVal,
    Maybe,
    Obj,
    Unknown,
)


def outside_self(rules: dict[str, Any]) -> dict[str, frozenset[str]]:
    """{outside class path: the method names that return self} from rules/startup.toml."""
    return {r["base"]: frozenset(r.get("returns_self", ())) for r in rules.get("outside_base", [])}


def outside_bases(cls: ClassVal) -> list[str]:
    """The dotted paths of the outside classes among `cls`'s bases (through its tree bases)."""
    out: list[str] = []
    for c in cls.mro():
        for base in c.bases:
            if isinstance(base, External) and base.path not in out:
                out.append(base.path)
    return out


def outside_stores(rules: dict[str, Any]) -> dict[str, frozenset[str]]:
    """{outside class path: the methods whose `m(name, value)` sets attribute `name`} from rules/startup.toml."""
    return {r["base"]: frozenset(r.get("stores", ())) for r in rules.get("outside_base", [])}


def outside_constructs(rules: dict[str, Any]) -> dict[str, frozenset[str]]:
    """{outside class path: the class methods whose `C.m(d)` is `C(**d)`} from rules/startup.toml."""
    return {r["base"]: frozenset(r.get("constructs", ())) for r in rules.get("outside_base", [])}


def outside_owns(rules: dict[str, Any]) -> dict[str, frozenset[str]]:
    """{outside class path: the public attributes an instance of it holds of its own} from
    rules/startup.toml (only the bases that list them)."""
    return {r["base"]: frozenset(r["own"]) for r in rules.get("outside_base", []) if "own" in r}


def outside_calls(rules: dict[str, Any]) -> dict[str, str]:
    """{outside class path: the method calling an instance runs} from rules/startup.toml."""
    return {r["base"]: r["call"] for r in rules.get("outside_base", []) if "call" in r}


if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter as _Combined
    from flagscan.evaluate.interp.state import State
    from flagscan.evaluate.interp.values import ModuleVal
else:
    _Combined = object  # the Interpreter it is combined with (predict.py): its members, for mypy only


class OutsideBaseMethods(_Combined):
    """`obj.m` where `obj`'s class gets `m` from an outside base whose `m` returns self; `obj(...)`
    where an outside base's `__call__` runs a method the tree class defines; `del obj.x` of an
    attribute the instance does not hold itself, where an outside base may hold it."""

    returns_self: ClassVar[dict[str, frozenset[str]]] = {}  # set per interpreter class from rules/startup.toml
    calls: ClassVar[dict[str, str]] = {}                    # likewise
    stores: ClassVar[dict[str, frozenset[str]]] = {}        # likewise
    constructs: ClassVar[dict[str, frozenset[str]]] = {}    # likewise
    owns: ClassVar[dict[str, frozenset[str]]] = {}          # likewise

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], state: State, module: ModuleVal,
             node: Any = None, line: int = 0) -> Any:
        func = self.deref(func, state)
        if self.calls and isinstance(func, Obj):
            method = self._outside_call(func)
            if isinstance(method, FuncVal):
                return super().call(BoundMethod(method, func), args, kwargs, state, module, node, line)
            if isinstance(method, Unknown):
                # the class's method was written through a value not known (0.5.12
                # compilation/compile.py install_torch_compiled: `module.forward =
                # types.MethodType(trampoline, module)` on a module not known): calling the
                # instance runs what it may now be, each option bound to the instance
                bound = None if method.options is None else tuple(
                    BoundMethod(o, func) if isinstance(o, FuncVal) else o for o in method.options)
                return super().call(Unknown(f"{func.cls.name}.{method.why}", method.needs, bound), args, kwargs,
                                    state, module, node, line)
        return super().call(func, args, kwargs, state, module, node, line)

    def callable_value(self, value: Any) -> bool:
        return (isinstance(value, Obj) and self._outside_call(value) is not None) \
            or super().callable_value(value)

    def _outside_call(self, obj: Obj) -> FuncVal | Unknown | None:
        """The tree method an outside base's `__call__` runs on `obj`, if the class defines no
        `__call__` of its own (that one is called as for any instance); an Unknown where the
        method was written through a value not known."""
        if obj.cls.lookup("__call__")[0]:
            return None
        for path in outside_bases(obj.cls):
            name = self.calls.get(path)
            if name is not None:
                found, method = obj.cls.lookup(name)
                if found and isinstance(method, (FuncVal, Unknown)):
                    return method
        return None

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        if self.constructs and isinstance(base, ClassVal) and not base.lookup(attr)[0] \
                and any(attr in self.constructs.get(p, ()) for p in outside_bases(base)):
            return Builtin(f"{base.name}.{attr}", _construct_from_dict(base))
        if (self.returns_self or self.stores) and isinstance(base, Obj) and attr not in state.attrs(base.oid):
            found, _ = base.cls.lookup(attr)
            bases = outside_bases(base.cls) if not found else []
            obj = base
            if any(attr in self.returns_self.get(p, ()) for p in bases):
                return Builtin(f"{base.cls.name}.{attr}", lambda _i, _s, _a, _k, _m, _l: obj)
            if any(attr in self.stores.get(p, ()) for p in bases):
                return Builtin(f"{base.cls.name}.{attr}", _store_attribute(obj))
        return super().getattr(base, attr, state, module, node)

    def outside_may_hold(self, obj: Obj, name: str) -> bool:
        """A torch module (an outside base rules/startup.toml [[outside_base]] lists) holds
        attributes of its own (`training`, parameters registered under a name not known). Where
        every outside base lists its own public attributes (`own`), a public name none lists is
        held only if something may have given it: a register call or a write under a name not
        known, or a write of that attribute through an object not known (0.5.12
        `use_intel_amx_backend(layer)`, `getattr(layer, "use_intel_amx_backend", False)`, is False
        for a GPU layer that CPU weight processing never marked)."""
        bases = outside_bases(obj.cls)
        listed = self.returns_self.keys() | self.stores.keys() | self.calls.keys()
        if not any(p in listed for p in bases):
            return False
        if name.startswith("_") or not all(p in self.owns for p in bases) or any(name in self.owns[p] for p in bases):
            return True
        return obj.oid in self.open_attrs or name in self.written_anywhere \
            or ANY_ATTRIBUTE in self.written_anywhere

    def delete_attr(self, obj: Any, attr: str, state: State, module: ModuleVal, line: int) -> None:
        # nn.Module keeps parameters in its own tables (register_parameter), not as plain
        # attributes: 0.5.10 DeepseekV3ForCausalLM.set_embed_and_head runs
        # `del self.model.embed_tokens.weight` on the weight VocabParallelEmbedding registered.
        # That the outside base does not hold it is not known: no AttributeError is raised.
        if isinstance(obj, Obj) and attr not in state.attrs(obj.oid) and not obj.cls.lookup("__delattr__")[0] \
                and outside_bases(obj.cls):
            return
        super().delete_attr(obj, attr, state, module, line)


def _construct_from_dict(cls: ClassVal) -> Any:
    """`Cls.from_dict(d, **kw)` of a tree class whose outside base builds it so (transformers'
    PretrainedConfig.from_dict is `cls(**config_dict)`; 0.5.14 mimo_v2.py builds its vision
    tower from `MiMoVLVisionConfig.from_dict(vision_config)`): the class is called with the
    dict's items as keyword arguments. A dict not known, or a key that is no string, leaves
    the result not known, as an outside method's result is."""
    def construct(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: Any, line: int) -> Any:
        items = interp.deref(args[0], state) if len(args) == 1 else None
        if not isinstance(items, dict) or not all(isinstance(k, str) for k in items) \
                or any(isinstance(v, Maybe) for v in items.values()):
            return Unknown(f"{cls.name}.from_dict(...)", getattr(items, "needs", frozenset()))
        return interp.call(cls, [], {**items, **kwargs}, state, module, None, line)
    return construct


def _store_attribute(obj: Obj) -> Any:
    """`obj.register_parameter(name, value)`: `obj.name` is `value` from now on (0.5.14
    fp8.py Fp8LinearMethod.create_weights `layer.register_parameter("weight_scale_inv", ...)`,
    which deepseek_v4.py then asserts with `hasattr(self.wo_a, "weight_scale_inv")`)."""
    def store(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: Any, line: int) -> None:
        values = [*args, *kwargs.values()]
        name = values[0] if values else None
        if isinstance(name, str) and len(values) > 1:
            interp.setattr(obj, name, values[1], state, module, line, raw=True)
        else:   # registered under a name not known: the instance may now hold any attribute
            interp.open_attrs.add(obj.oid)
        interp.hand_over(obj, values, {})   # torch keeps what it is given (`modules()` gives it back)
        return None
    return store
