"""inputs: a real argparse parser rebuilt from a flag inventory, recording what each option did."""

from __future__ import annotations

import argparse
import functools
from dataclasses import dataclass, field
from typing import Any

from flagscan.facts.flags import Flag, Inventory, Location

_TYPES: dict[str | None, Any] = {"int": int, "float": float, "str": str, "bool": bool, None: str}
_STANDARD = frozenset({"store", "store_const", "store_true", "store_false", "append", "append_const",
                       "count", "extend"})
ACCUMULATING = frozenset({"append", "append_const", "count", "extend"})


class Arg(str):
    """An argv string that remembers the token it came from (argparse hands the same object to
    the type function, so each value can be traced back to its place in the file)."""

    tok: int

    @classmethod
    def of(cls, text: str, tok: int) -> Arg:
        arg = cls(text)
        arg.tok = tok
        return arg


@dataclass(slots=True)
class Converted:
    value: Any
    tok: int | None
    raw: str
    # False for a custom conversion flagscan does not run (the raw string is kept).
    checkable: bool = True


@dataclass(slots=True)
class Invalid:
    raw: str
    tok: int | None
    type_name: str


def converter(type_name: str | None) -> Any:
    conv = _TYPES.get(type_name)

    def convert(raw: str) -> Converted | Invalid:
        tok = getattr(raw, "tok", None)
        if conv is None:
            return Converted(str(raw), tok, str(raw), checkable=False)
        try:
            return Converted(conv(str(raw)), tok, str(raw))
        except (ValueError, TypeError, OverflowError):
            return Invalid(str(raw), tok, type_name or "str")

    convert.__name__ = type_name or "str"
    return convert


@dataclass(frozen=True, slots=True)
class Call:
    dest: str
    option: str | None
    values: Any
    after: Any
    ignored: bool


class ParseFailure(Exception):
    pass


class RecordingParser(argparse.ArgumentParser):
    calls: list[Call]
    _formatter: argparse.HelpFormatter | None = None

    def error(self, message: str) -> Any:  # argparse would print and exit; we want the message
        raise ParseFailure(message)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse asks for a fresh formatter on every add_argument, only to check a metavar
        # tuple against nargs (`_format_args`, which keeps no state), and each one asks the
        # terminal for its size: a third of building 0.5.23's parser. This parser's help and
        # usage are never printed, so one formatter serves every check.
        if self._formatter is None:
            self._formatter = self.formatter_class(prog=self.prog)
        return self._formatter


@functools.cache
def _recording(base: type[argparse.Action], ignored: bool = False) -> type[argparse.Action]:
    class Recording(base):  # type: ignore[valid-type, misc]  # a base chosen at run time: mypy cannot follow it
        def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
            if not ignored:
                super().__call__(parser, namespace, values, option_string)
            parser.calls.append(Call(self.dest, option_string, values,
                                     getattr(namespace, self.dest, None), ignored))

    Recording.__name__ = f"Recording{base.__name__}"
    return Recording


@dataclass(slots=True)
class Built:
    parser: RecordingParser
    actions: dict[str, argparse.Action] = field(default_factory=dict)
    flags: dict[str, Flag] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # option -> the standard action used


def _spec(flag: Flag) -> tuple[str, dict[str, Any]]:
    """The standard action that behaves like the flag's action, and its keyword arguments."""
    action = flag.action
    if action.endswith("BooleanOptionalAction") or (action not in _STANDARD and flag.semantics == "store_bool"):
        return "boolean_optional", {}
    if action in ("help", "version"):
        return "store_true", {}
    custom = action not in _STANDARD
    if custom:
        # A custom action class: Flag.semantics says what it does to the namespace.
        action = {"store_true": "store_true", "store_const": "store_const", "ignore": "ignore"}.get(
            flag.semantics, "store")
    kwargs: dict[str, Any] = {}
    if action in ("store", "append", "extend", "ignore"):
        nargs = flag.nargs if flag.nargs is not None or action != "ignore" else 0
        if nargs == 0 and action != "ignore":
            return "store_const", {"const": flag.const if flag.const is not None else True}
        if nargs is not None:
            kwargs["nargs"] = nargs
        if nargs != 0:
            kwargs["type"] = converter(flag.type)
    elif action in ("store_const", "append_const"):
        # a custom action stores what its __call__ sets (`setattr(namespace, self.dest,
        # self.const_value)`), which need not be argparse's `const`
        kwargs["const"] = flag.stored if custom and flag.stored is not None else flag.const
    return action, kwargs


def build_parser(inventory: Inventory) -> Built:
    # allow_abbrev is False here on purpose: OptionTable resolves abbreviations first, with
    # inventory.allow_abbrev, so every Python version behaves the same and each token is known.
    parser = RecordingParser(prog="sglang serve", add_help=False, allow_abbrev=False,
                             exit_on_error=False, conflict_handler="resolve")
    parser.calls = []
    built = Built(parser)
    # argparse's own -h/--help takes part in abbreviation matching (`--he`, `--h`...).
    help_flag = Flag("help", ("-h", "--help"), Location("argparse", 0), action="store_true")
    for flag in (*inventory.flags, help_flag):
        options = [o for o in flag.options if o.startswith("-")]
        if flag is help_flag:
            options = [o for o in options if o not in built.actions]
        if not options:
            continue
        name, kwargs = _spec(flag)
        if name == "boolean_optional":
            options = [o for o in options if not o.startswith("--no-")] or options
            cls: type[argparse.Action] = _recording(argparse.BooleanOptionalAction)
        elif name == "ignore":
            cls = _recording(argparse.Action, ignored=True)
        else:
            cls = _recording(parser._registry_get("action", name, None) or argparse.Action)
        try:
            action = parser.add_argument(*options, action=cls, dest=flag.dest, default=argparse.SUPPRESS, **kwargs)
        except (ValueError, TypeError, argparse.ArgumentError):
            name = "store"
            action = parser.add_argument(*options, action=_recording(parser._registry_get("action", "store")),
                                         dest=flag.dest, default=argparse.SUPPRESS, type=converter(None))
        for option in action.option_strings:
            built.actions[option] = action
            built.flags[option] = flag
            built.kinds[option] = name
    return built


def value_range(action: argparse.Action) -> tuple[int, float]:
    """How many separate argv strings the action needs at least and takes at most."""
    nargs = action.nargs
    if nargs is None:
        return 1, 1
    if isinstance(nargs, int):
        return nargs, nargs
    return {"?": (0, 1), "*": (0, float("inf")), "+": (1, float("inf"))}.get(nargs, (0, float("inf")))
