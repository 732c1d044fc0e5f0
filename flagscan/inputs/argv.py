"""inputs: launch command argv -> flag values, with argparse's real semantics and the problems found.

Problems are neutral facts (`flagscan.diagnostics.Problem`: a kind, a place, data); the lint
rules of flagscan/lint/rules/ give them a code, a severity and a message."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flagscan.diagnostics import FileLocation, Problem, ProblemKind
from flagscan.facts.flags import Flag, Inventory, UnknownValue
from flagscan.inputs.config import Tok, merge_config
from flagscan.inputs.launcher import basename
from flagscan.inputs.model import LaunchCommand
from flagscan.inputs.parser import (
    ACCUMULATING,
    Arg,
    Built,
    Call,
    Converted,
    Invalid,
    ParseFailure,
    build_parser,
    value_range,
)
from flagscan.inputs.resolve import OptionTable


@dataclass(frozen=True, slots=True)
class FlagValue:
    """A value the user gave: `option` is the option string argparse matched (``--tp`` for the
    alias, the full option for an abbreviation); `location` is the option's place in the file."""

    dest: str
    value: Any
    option: str
    location: FileLocation | None


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    command: LaunchCommand
    values: dict[str, FlagValue] = field(hash=False)
    problems: tuple[Problem, ...]


def suggest(option: str, options: Sequence[str]) -> str | None:
    """The closest known option: same spelling with `-` for `_`, then difflib's best match."""
    known = set(options)
    for guess in (option.replace("_", "-").lower(), "-" + option if not option.startswith("--") else ""):
        if guess in known:
            return guess
    long = sorted(o for o in known if o.startswith("--"))
    close = difflib.get_close_matches(option, long, n=1, cutoff=0.6)
    return close[0] if close else None


_CACHE: dict[int, tuple[Inventory, Built]] = {}


def _built(inventory: Inventory) -> Built:
    cached = _CACHE.get(id(inventory))
    if cached is None or cached[0] is not inventory:
        if len(_CACHE) > 8:
            _CACHE.clear()
        cached = _CACHE[id(inventory)] = (inventory, build_parser(inventory))
    cached[1].parser.calls = []
    return cached[1]


class _Run:
    def __init__(self, command: LaunchCommand, inventory: Inventory) -> None:
        self.command, self.inventory = command, inventory
        self.built = _built(inventory)
        self.table = OptionTable(self.built.actions, inventory.allow_abbrev)
        self.problems: list[Problem] = []
        self.uncertain = False  # arguments exist that flagscan cannot see (unset variables...)
        self.tokens: list[Tok] = []
        self.argv: list[Arg] = []
        self.option_at: list[int] = []  # argv positions of the options, in order

    def add(self, kind: ProblemKind, tok: Tok | None, option: str | None = None, **data: Any) -> None:
        self.problems.append(Problem(kind, tok.location if tok else None, option, data))

    # -- before argparse ----------------------------------------------------------
    def prepare(self) -> None:
        tokens = [Tok(a.text, FileLocation(a.path, a.line, a.column), a.unresolved) for a in self.command.args]
        for tok in tokens:
            if tok.unresolved:
                self.add(ProblemKind.UNEXPANDED_VARIABLE, tok, text=tok.text, variables=list(tok.unresolved))
        launcher = self.command.launcher
        if len(launcher) >= 2 and launcher[-1] == "serve" and basename(launcher[-2]) == "sglang" \
                and "--model-type" not in self.built.actions:
            tokens = self._strip_model_type(tokens)
        merge = merge_config(tokens, self.inventory, os.path.dirname(self.command.path))
        self.problems.extend(merge.problems)
        self.uncertain = not merge.complete
        self.tokens = merge.tokens
        self._classify()

    @staticmethod
    def _strip_model_type(tokens: list[Tok]) -> list[Tok]:
        """`sglang serve` takes `--model-type` itself before building the server parser."""
        out, i = [], 0
        while i < len(tokens):
            if tokens[i].text == "--model-type":
                i += 2
                continue
            if not tokens[i].text.startswith("--model-type="):
                out.append(tokens[i])
            i += 1
        return out

    def _skip_values(self, i: int) -> int:
        while i < len(self.tokens) and self.table.resolve(self.tokens[i].text).kind == "value":
            i += 1
        return i

    def _classify(self) -> None:
        tokens, i = self.tokens, 0
        config = self.inventory.config_option
        while i < len(tokens):
            tok = tokens[i]
            if tok.text == "--":
                for rest in tokens[i + 1:]:
                    self._stray(rest, None)
                return
            r = self.table.resolve(tok.text)
            if r.kind == "value":
                self.argv.append(Arg.of(tok.text, i))
                i += 1
                continue
            name = tok.text.split("=", 1)[0]
            if r.kind != "option":
                if tok.unresolved:
                    self.uncertain = True
                elif r.kind == "unknown":
                    self.add(ProblemKind.UNKNOWN_OPTION, tok, name, suggestion=suggest(name, list(self.table.options)))
                else:
                    self.add(ProblemKind.AMBIGUOUS_OPTION, tok, name, candidates=list(r.candidates))
                i = self._skip_values(i + 1)
                continue
            assert r.option is not None
            if r.abbreviated:
                self.add(ProblemKind.ABBREVIATED_OPTION, tok, r.option, abbreviation=name, resolved=r.option)
            if r.option == config and tok.text != config:
                self.add(ProblemKind.CONFIG_NOT_MERGED, tok, r.option, written=name, config=config)
            low, high = value_range(self.built.actions[r.option])
            following = self._skip_values(i + 1) - (i + 1)
            if (r.explicit is not None and (high == 0 or low > 1)) or (r.explicit is None and following < low):
                # `explicit`: the `=value` given to an option that takes none (or more than one)
                self.add(ProblemKind.MISSING_VALUE, tok, r.option, expected=low, explicit=r.explicit)
                i = self._skip_values(i + 1)
                continue
            text = r.option if r.explicit is None else f"{r.option}={r.explicit}"
            self.option_at.append(len(self.argv))
            self.argv.append(Arg.of(text, i))
            i += 1

    def _stray(self, tok: Tok, after: str | None) -> None:
        if tok.unresolved:
            self.uncertain = True
            return
        self.add(ProblemKind.STRAY_ARGUMENT, tok, after, text=tok.text, after=after)

    # -- argparse ----------------------------------------------------------------------
    def parse(self) -> list[Call]:
        parser = self.built.parser
        for _ in range(len(self.argv) + 2):
            parser.calls = []
            try:
                parser.parse_known_args(list(self.argv), argparse.Namespace())
                return parser.calls
            except (argparse.ArgumentError, ParseFailure) as exc:
                self._drop_failed(len(parser.calls), str(exc))
        return []

    def _drop_failed(self, done: int, message: str) -> None:
        """A failure flagscan did not foresee: blame the next option, drop it, parse again."""
        if done >= len(self.option_at):
            self.add(ProblemKind.PARSER_REJECTS, None, message=message)
            self.argv, self.option_at = [], []
            return
        at = self.option_at[done]
        end = at + 1
        while end < len(self.argv) and end not in self.option_at:
            end += 1
        self.add(ProblemKind.PARSER_REJECTS, self.tokens[self.argv[at].tok], message=message)
        removed = end - at
        self.argv = self.argv[:at] + self.argv[end:]
        self.option_at = [p if p < at else p - removed for p in self.option_at if p != at]

    # -- after argparse -------------------------------------------------------------------
    def judge(self, calls: list[Call]) -> dict[str, FlagValue]:
        consumed: set[int] = set()
        latest: dict[str, tuple[Call, Tok | None, bool]] = {}
        seen: dict[str, Tok] = {}
        cursor = 0
        for call in calls:
            # The k-th call normally comes from the k-th option; an option argparse took as a
            # value (nargs=REMAINDER) is stepped over.
            option_arg = None
            while cursor < len(self.option_at):
                candidate = self.argv[self.option_at[cursor]]
                cursor += 1
                if candidate == call.option or candidate.startswith(f"{call.option}="):
                    option_arg = candidate
                    break
            tok = self.tokens[option_arg.tok] if option_arg is not None else None
            if option_arg is not None:
                consumed.add(option_arg.tok)
            flag = self.built.flags.get(call.option or "")
            if flag is None:
                continue
            valid = self._check_values(call, flag, tok, consumed)
            if flag.deprecated:
                self.add(ProblemKind.DEPRECATED_OPTION, tok, call.option, replacement=flag.replacement,
                         ignored=bool(call.ignored))
            if call.ignored or (call.dest == "help" and flag.location.path == "argparse"):
                continue
            kind = self.built.kinds.get(call.option or "", "")
            first = seen.get(call.dest)
            if first is not None and kind not in ACCUMULATING and tok is not None and tok.origin == "cli" \
                    and first.origin == "cli":
                self.add(ProblemKind.DUPLICATE_OPTION, tok, call.option,
                         first=first.location.to_json() if first.location else None)
            if tok is not None and (first is None or tok.origin == "cli"):
                seen[call.dest] = tok
            latest[call.dest] = (call, tok, valid)
        for arg in self.argv:
            if arg.tok not in consumed:
                self._stray(self.tokens[arg.tok], self._previous_option(arg.tok))
        values: dict[str, FlagValue] = {}
        for dest, (call, tok, valid) in latest.items():
            value, ok = self.unwrap(call.after, tok)
            if valid and ok:
                values[dest] = FlagValue(dest, value, call.option or "", tok.location if tok else None)
        return values

    def _previous_option(self, index: int) -> str | None:
        if index == 0:
            return None
        r = self.table.resolve(self.tokens[index - 1].text)
        if r.kind == "option" and r.option and value_range(self.built.actions[r.option])[1] == 0:
            return r.option
        return None

    def _unknown(self, item: Any, option_tok: Tok | None) -> bool:
        """Whether a value comes from a variable this file leaves unset."""
        if not isinstance(item, (Converted, Invalid)):
            return False
        tok = self.tokens[item.tok] if item.tok is not None else option_tok
        return bool(tok and tok.unresolved)

    def _check_values(self, call: Call, flag: Flag, tok: Tok | None, consumed: set[int]) -> bool:
        items = call.values if isinstance(call.values, list) else [call.values]
        # the choices to check a value against: all known, else none
        choices = flag.choices if isinstance(flag.choices, tuple) and \
            not any(isinstance(c, UnknownValue) for c in flag.choices) else None
        valid = True
        for item in items:
            if isinstance(item, (Converted, Invalid)) and item.tok is not None:
                consumed.add(item.tok)
            if self._unknown(item, tok):
                continue  # its real value is not known here; FS007 already says so
            where = self.tokens[item.tok] if isinstance(item, (Converted, Invalid)) and item.tok is not None else tok
            if isinstance(item, Invalid):
                valid = False
                self.add(ProblemKind.INVALID_TYPE, where, call.option, value=item.raw, type_name=item.type_name)
            elif isinstance(item, Converted) and item.checkable and choices is not None and item.value not in choices:
                valid = False
                self.add(ProblemKind.INVALID_CHOICE, where, call.option, value=item.value, choices=list(choices))
        return valid

    def unwrap(self, value: Any, option_tok: Tok | None) -> tuple[Any, bool]:
        """The plain value (UnknownValue for what an unset variable gives) and whether it is valid."""
        if self._unknown(value, option_tok):
            return UnknownValue(value.raw), True
        if isinstance(value, Converted):
            return value.value, True
        if isinstance(value, Invalid):
            return value.raw, False
        if isinstance(value, list):
            pairs = [self.unwrap(v, option_tok) for v in value]
            return [v for v, _ in pairs], all(ok for _, ok in pairs)
        return value, True

    def required(self, values: dict[str, FlagValue]) -> None:
        if self.uncertain:
            return
        args = self.command.args
        where = FileLocation(self.command.path, self.command.line, args[0].column if args else 0)
        done: set[str] = set()
        for flag in self.inventory.flags:
            if flag.required and flag.dest not in values and flag.dest not in done:
                done.add(flag.dest)
                self.problems.append(Problem(ProblemKind.MISSING_REQUIRED, where, flag.options[0]))


def parse_command(command: LaunchCommand, inventory: Inventory) -> ParsedCommand:
    """The flag values a launch command gives, judged against one revision's flag inventory.
    Never raises for bad arguments: they become problems."""
    run = _Run(command, inventory)
    run.prepare()
    values = run.judge(run.parse())
    run.required(values)
    def key(item: tuple[int, Problem]) -> tuple[Any, ...]:
        i, d = item
        loc = d.location
        return (loc is None, loc.path if loc else "", loc.line if loc else 0, loc.column if loc else 0, i)

    ordered = tuple(p for _, p in sorted(enumerate(run.problems), key=key))
    return ParsedCommand(command, values, ordered)


def option_words(inventory: Inventory, texts: Sequence[str], index: int) -> int | None:
    """How many arguments the option at `texts[index]` takes with it, itself included, as
    argparse would consume them (a `--opt=value` word is one; `nargs` bounds the values that
    follow); None when the word is not an option of this revision."""
    built = _built(inventory)
    table = OptionTable(built.actions, inventory.allow_abbrev)
    r = table.resolve(texts[index])
    if r.kind != "option" or r.option is None:
        return None
    if r.explicit is not None:
        return 1
    _low, high = value_range(built.actions[r.option])
    n = 1
    while index + n < len(texts) and n - 1 < high and table.resolve(texts[index + n]).kind == "value":
        n += 1
    return n
