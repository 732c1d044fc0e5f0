"""evaluate: whether the model-config loader accepts config.json's model_type: SGLang's
get_config (the `model.hf_config` meaning of rules/world.toml [sglang]) calls transformers'
AutoConfig.from_pretrained, which raises for a model_type that the transformers version the
release pins does not register (flagscan/source/hf_config_types.py reads that registry from the
version's own wheel) and that SGLang does not register either (its own config registry,
rules/world.toml [model] config_registries). Which call raises, and what makes a config.json
bring its own config class, is rule data (rules/model_types.toml [loader])."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flagscan.facts import ir
from flagscan.facts.ir import Node, dotted, is_kind, view
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
    from flagscan.evaluate.interp.state import State
    from flagscan.evaluate.interp.values import FuncVal
    from flagscan.evaluate.world import ModelFacts, World
    from flagscan.source.hf_config_types import ConfigTypes


@dataclass(frozen=True, slots=True)
class Refusal:
    """The loader raises `message` at `line` of the loader function's module; `handler_line` is
    the line of a `try` around that call with a handler that may take a ValueError (then
    whether the raise reaches SGLang's caller rests on what that handler does: assumed)."""

    model_type: str
    message: str
    line: int
    handler_line: int | None
    origin: str   # where the registry and the message were read (wheel:file:line)


def _calls(node: Any) -> Iterator[Node]:
    """Every call node inside an expression or statement IR (nested function bodies excluded)."""
    if isinstance(node, dict):
        return
    if isinstance(node, list):
        if node and node[0] == "call":
            yield node
        if node and node[0] in ("def", "class", "lambda"):
            return
        for child in node:
            if isinstance(child, list):
                yield from _calls(child)


def _catches_value_error(type_expr: Any) -> bool:
    """Whether an `except` clause's type may take a ValueError: bare, or naming a builtin
    exception class ValueError derives from (Python's own hierarchy), or naming anything
    not a builtin class (not known: taken as may)."""
    if type_expr is None:
        return True
    names = view(ir.Elements, type_expr).elts if is_kind(type_expr, "tuple") else [type_expr]
    for name in names:
        spelled = dotted(name)
        cls = getattr(builtins, spelled, None) if spelled and "." not in spelled else None
        if not isinstance(cls, type) or issubclass(ValueError, cls):
            return True
    return False


_STATEMENTS = {*ir.STATEMENTS, "pass", "break", "continue"}


def _is_block(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(s, list) and len(s) > 1 and s[0] in _STATEMENTS and isinstance(s[1], int) for s in value)


def _matches(call: Node, calls: set[str]) -> bool:
    name = dotted(view(ir.Call, call).func) or ""
    return any(name == c or name.endswith("." + c) for c in calls)


def _loader_sites(body: list[Node], calls: set[str], handler: int | None = None) -> Iterator[tuple[int, int | None]]:
    """(line of a loader call, line of the innermost `try` around it with a handler that may
    take its ValueError, or None) for each loader call in a function body, in order."""
    for stmt in body:
        if stmt[0] in ("def", "class"):
            continue
        if stmt[0] == "try":
            line, tbody, handlers, orelse, final = view(ir.Try, stmt)
            taking = any(_catches_value_error(types) for types, _name, _body in handlers)
            yield from _loader_sites(tbody, calls, line if taking else handler)
            for block in [*(body for _types, _name, body in handlers), orelse, final]:
                yield from _loader_sites(block, calls, handler)
            continue
        for part in stmt[2:]:
            if _is_block(part):
                yield from _loader_sites(part, calls, handler)
            else:
                for call in _calls(part):
                    if _matches(call, calls):
                        yield view(ir.Call, call).line or stmt[1], handler   # a call's own line, else the statement's


def refusal(config: dict[str, Any] | None, types: ConfigTypes | None, registry: dict[str, Any] | None,
            loader_body: list[Node]) -> Refusal | None:
    """The loader's refusal of `config` (a complete config.json), or None when it accepts it or
    when that is not known: no model_type, a config that brings its own class, the pinned
    transformers' registry not read (`types` None), SGLang's own registry not followed
    (`registry` None), or no loader call found in the loader function's body."""
    rules = load("model_types")["loader"]
    if not isinstance(config, dict) or types is None or registry is None:
        return None
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        return None
    remote = config.get(rules["remote_code_map"])
    if isinstance(remote, dict) and rules["remote_code_key"] in remote:
        return None
    if types.knows(model_type) or model_type in registry:
        return None
    sites = list(_loader_sites(loader_body, set(rules["calls"])))
    if not sites:
        return None
    line, handler = sites[0]
    return Refusal(model_type, types.message_for(model_type), line, handler, types.origin)





def _handler(body: list[Node], try_line: int) -> tuple[str | None, list[Node]] | None:
    """(exception name, statements) of the first handler that may take a ValueError of the
    `try` at `try_line` in a function body."""
    for stmt in body:
        if stmt[0] == "try" and stmt[1] == try_line:
            return next(((h[1], h[2]) for h in stmt[3] if _catches_value_error(h[0])), None)
        if stmt[0] in ("def", "class"):
            continue
        for part in stmt[2:]:
            if _is_block(part):
                found = _handler(part, try_line)
                if found is not None:
                    return found
        if stmt[0] == "try":
            for block in [*(h[2] for h in stmt[3])]:
                found = _handler(block, try_line)
                if found is not None:
                    return found
    return None


def apply(world: World, interp: InterpreterParts, fn: FuncVal, args: list[Any], kwargs: dict[str, Any],
          state: State, model: ModelFacts | None = None) -> Refusal | None:
    """At a call of the loader function `fn` (answered with config.json): transformers'
    refusal of config.json's model_type raises at the loader call's line. With no handler
    around that call that may take it, the call raises; with one, that handler's statements
    run (in the loader's frame, its exception name bound) and decide: the paths on which it
    raises raise, the others go on with the config as the handler's own loading gives it
    (SGLang 0.5.6's handler for `deepseek_v32` rewrites config.json's architecture and loads
    that copy), which is not config.json as given: the refusal is returned, and the caller
    answers the call with a config not known on those paths."""
    from flagscan.evaluate.interp.base import Dead
    from flagscan.evaluate.interp.state import join_states
    from flagscan.evaluate.interp.values import ExcVal

    model = model or world.model   # the model the loader call is for (World._model_loaded)
    types = getattr(world.dists, "config_types", None)
    if model is None or not model.complete or types is None:
        return None
    found = refusal(model.config, types, world.config_registry(interp, state), fn.ir.get("body", []))
    if found is None:
        return None
    exc = ExcVal("ValueError", found.message)
    handler = _handler(fn.ir["body"], found.handler_line) if found.handler_line is not None else None
    if handler is None:
        interp.record(state, "raise", fn.module, found.line, value="ValueError", message=found.message)
        state.raised.append((state.fork(), exc))
        raise Dead()
    name, body = handler
    saved = state.locals, state.conds, state.function, getattr(state, "closure", None)
    frame = interp.bind_params(fn, list(args), dict(kwargs), state)
    if name:
        frame[name] = exc
    frame["__exception__"] = exc   # what a bare `raise` re-raises
    state.locals, state.conds, state.function, state.closure = frame, (), fn.ir["name"], fn.closure
    interp.record(state, "raise", fn.module, found.line, value="ValueError", message=found.message)
    interp.depth += 1
    interp.stack.append((fn.qualname, fn.ir))
    try:
        outcomes = interp.exec_block(body, state, fn.module)
    finally:
        interp.depth -= 1
        interp.stack.pop()
    for _kind, s, _value in outcomes:
        s.locals, s.conds, s.function, s.closure = saved
    state.raised.extend((s, v) for k, s, v in outcomes if k == "raise")
    going_on = [s for k, s, _v in outcomes if k != "raise"]
    state.locals, state.conds, state.function, state.closure = saved
    if not going_on:
        raise Dead()
    state.adopt(join_states(going_on, f"{fn.qualname}(...)"))
    state.locals, state.conds, state.function, state.closure = saved
    return found


__all__ = ["Refusal", "apply", "refusal"]
