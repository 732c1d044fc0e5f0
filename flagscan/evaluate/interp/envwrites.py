"""evaluate: the environment variables SGLang's code sets or clears while it runs.

`os.environ[NAME] = v`, `os.environ.setdefault(NAME, v)`, `del os.environ[NAME]`,
`os.environ.pop(NAME)` and `.update({...})` on the process environment are recorded
as `env` events on the path that makes them (with its conditions and assumptions).
A write made inside one of SGLang's environment helper modules (0.5.20+'s
`sglang/srt/environ.py`: `envs.X.set(v)` ends in `os.environ[self.name] = str(v)`)
is attributed to the first caller outside them, the hook that asked for it
(rules/environment.toml). What the resolution leaves set is reported under "env"
and given to the runtime gates as known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.state import Event, State
from flagscan.evaluate.interp.values import Builtin, Maybe, ModuleVal, Unknown, has_unknown
from flagscan.facts.render import conjunction
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts


class _Unset:
    """The value of a variable the code removed from the environment."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unset>"


UNSET = _Unset()
# The heap entry where each path keeps what it wrote (NAME -> value or UNSET), so that
# joining paths joins the writes as it joins a record's fields: a variable written on
# one path only, or to different values, is not certain.
ENV_OID = -1
MUTATORS = frozenset({"setdefault", "pop", "update", "clear"})


def _helpers() -> frozenset[str]:
    return frozenset(load("environment").get("writes", {}).get("helper_modules", []))


def record(interp: InterpreterParts, state: State, module: ModuleVal, line: int, name: str, value: Any,
           how: str) -> None:
    """An `env` event for NAME (value UNSET: removed), located at the code that asked for it."""
    helpers = _helpers()
    where, at, function, conds = module, line, state.function, state.conds
    if module.name in helpers:
        for site_module, site_line, site_function, site_conds in reversed(getattr(interp, "sites", [])):
            if isinstance(site_module, ModuleVal) and site_module.name not in helpers:
                where, at, function, conds = site_module, site_line, site_function, site_conds
                break
    state.add_event(Event("env", interp.loc(where, at), function, conds, state.assumptions,
                          attr=name, value=value, message=how))
    state.writable(ENV_OID)[name] = value


def mutator(interp: InterpreterParts, env: dict[str, Any], attr: str) -> Builtin:
    """A method of the process environment that changes it, recorded, then done on `env`."""

    def call(interp_: InterpreterParts, state: State, args: list[Any], kwargs: dict[str, Any], module: ModuleVal,
             line: int) -> Any:
        key = args[0] if args else kwargs.get("key")
        if attr == "setdefault":
            if not isinstance(key, str):
                return Unknown("os.environ.setdefault(...)", {"env"})
            if key not in env:
                value = args[1] if len(args) > 1 else kwargs.get("default")
                record(interp_, state, module, line, key, value, "setdefault")
                env[key] = value
            return env[key]
        if attr == "pop":
            if not isinstance(key, str):
                return Unknown("os.environ.pop(...)", {"env"})
            if key in env:
                record(interp_, state, module, line, key, UNSET, "pop")
                return env.pop(key)
            return args[1] if len(args) > 1 else kwargs.get("default")
        if attr == "update":
            pairs = args[0] if args else kwargs
            if not isinstance(pairs, dict) or any(not isinstance(k, str) for k in pairs):
                return Unknown("os.environ.update(...)", {"env"})
            for k, v in list(pairs.items()) + ([] if not args else list(kwargs.items())):
                record(interp_, state, module, line, k, v, "update")
                env[k] = v
            return None
        for k in sorted(env):
            record(interp_, state, module, line, k, UNSET, "clear")
        env.clear()
        return None

    return Builtin(f"os.environ.{attr}", call)


@dataclass(frozen=True, slots=True)
class EnvCause:
    location: str
    handler: str
    condition: str
    how: str          # setitem | setdefault | del | pop | update | clear
    certain: bool

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "handler": self.handler, "condition": self.condition,
                "how": self.how, "certain": self.certain}


@dataclass(frozen=True, slots=True)
class EnvSetting:
    """What the code leaves in one environment variable: `value` None when it is removed
    (or not known: then `certain` is false)."""

    name: str
    value: str | None
    certain: bool
    because: tuple[EnvCause, ...]

    @property
    def unset(self) -> bool:
        return self.certain and self.value is None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "certain": self.certain, "because": [c.to_json() for c in self.because]}


def _text(value: Any) -> str | None:
    if value is UNSET or has_unknown(value):
        return None
    return value if isinstance(value, str) else str(value)


def collect(state: State) -> dict[str, EnvSetting]:
    """NAME -> what the joined paths leave in it: certain when every path that reaches the end
    wrote the same known value (or removed it); the causes are every write, path by path."""
    by_name: dict[str, list[Event]] = {}
    for e in state.events:
        if e.kind == "env" and isinstance(e.attr, str):
            by_name.setdefault(e.attr, []).append(e)
    left = state.heap.get(ENV_OID, {})
    out: dict[str, EnvSetting] = {}
    for name in sorted(by_name):
        writes = by_name[name]
        final = left.get(name, Unknown(f"${name} (written on a path that did not finish)"))
        certain = final is UNSET or (not isinstance(final, (Unknown, Maybe)) and not has_unknown(final))
        causes = tuple(EnvCause(e.location, e.function or "<module>", conjunction(e.conds), e.message or "setitem",
                                not e.assumptions) for e in writes)
        out[name] = EnvSetting(name, _text(final) if certain else None, certain, causes)
    return out


def known_env(given: dict[str, str], settings: dict[str, EnvSetting]) -> dict[str, str | None]:
    """The environment the runtime sees: the given variables, then what the resolution
    certainly set (a value) or removed (None). What it may have set stays unknown."""
    out: dict[str, str | None] = dict(given)
    for name, s in settings.items():
        if s.certain:
            out[name] = s.value
        elif name not in given:
            continue
        else:
            out.pop(name)   # given, but the code may have changed it: no longer known
    return out


__all__ = ["ENV_OID", "MUTATORS", "UNSET", "EnvCause", "EnvSetting", "collect", "known_env", "mutator", "record"]
