"""evaluate: the startup phase: properties of SGLang's config classes, read on a config from config.json.

SGLang's get_config builds, for a registered model_type, its own config class, and model
code reads that class's properties as if they were keys: 0.5.9-0.5.23 Qwen3_5ForCausalLM's
`get_layer` picks each decoder layer's class by `config.layers_block_type[idx]`, a property
of Qwen3NextConfig computed from `num_hidden_layers` and `full_attention_interval`. Without
it no decoder layer of a hybrid model is built, and nothing their construction checks (the
FP8 block shape of a linear layer) is reached.

A config.json key missing from the view is read as the class's property when the class
(rules/world.toml [model] config_registries, or the `sub_configs` of the registered parent
class) defines one, and only when none of the attributes the property reads is rewritten by
an `__init__` of the class or its tree bases (`self.x = x` passes the key through; anything
else may differ from what config.json says). Otherwise the key stays unknown, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.values import ClassVal, ConfigView, FuncVal

if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter as _Combined
    from flagscan.evaluate.interp.state import State
    from flagscan.evaluate.interp.values import ModuleVal
else:
    _Combined = object  # the Interpreter it is combined with (predict.py): its members, for mypy only


class ConfigProperties(_Combined):
    """`config.p` for a property `p` of the SGLang config class a config.json view stands for."""

    config_properties = False  # on while the startup entries run (flagscan/evaluate/startup/run.py)

    def getattr(self, base: Any, attr: str, state: State, module: ModuleVal, node: Any = None) -> Any:
        if self.config_properties and isinstance(base, ConfigView) and attr not in base.data \
                and not attr.startswith("__"):
            fn = self._config_property(base, attr, state)
            if fn is not None:
                return self.call(fn, [base], {}, state, module)
        return super().getattr(base, attr, state, module, node)

    def _config_property(self, view: ConfigView, attr: str, state: State) -> FuncVal | None:
        from flagscan.evaluate.interp.builtins import config_class

        cls = config_class(self, state, view)
        if not isinstance(cls, ClassVal):
            return None
        found, fn = cls.lookup(attr)
        if not found or not isinstance(fn, FuncVal) or fn.kind != "property":
            return None
        safe = self.__dict__.setdefault("_config_safe", {})
        key = (id(fn.ir), cls.name)
        if key not in safe:
            rewritten = _rewritten(cls)
            safe[key] = "*" not in rewritten and not (_self_reads(fn.ir.get("body", [])) & rewritten)
        return fn if safe[key] else None


def _self_reads(node: Any) -> set[str]:
    """The attributes `self.X` an IR subtree reads."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            if len(n) >= 3 and n[0] == "a" and n[1] == ["n", "self"] and isinstance(n[2], str):
                out.add(n[2])
            stack.extend(n)
        elif isinstance(n, dict):
            stack.extend(n.values())
    return out


def _rewritten(cls: ClassVal) -> set[str]:
    """The attributes an `__init__` of `cls` or its tree bases assigns other than `self.x = x`
    (every name, written "*", when it calls setattr: what it writes is not read here)."""
    out: set[str] = set()
    for c in cls.mro():
        init = c.attrs.get("__init__")
        if not isinstance(init, FuncVal):
            continue
        stack: list[Any] = [init.ir.get("body", [])]
        while stack:
            n = stack.pop()
            if isinstance(n, list):
                if len(n) >= 4 and n[0] == "assign":
                    for attr in _self_reads(n[2]):
                        if n[3] != ["n", attr]:
                            out.add(attr)
                elif len(n) >= 3 and n[0] == "aug":
                    out |= _self_reads(n[2])
                if n[:2] == ["n", "setattr"]:
                    out.add("*")
                stack.extend(n)
            elif isinstance(n, dict):
                stack.extend(n.values())
    return out
