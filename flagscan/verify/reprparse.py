"""verify: read a Python repr (`ServerArgs(...)`, a dict) back into data, without evaluating it.

What SGLang logs is `repr()` of a dataclass (up to 0.5.18: `server_args=ServerArgs(a=1, ...)`)
or of a dict (0.5.20+: `server_args={'a': 1, ...}`). The grammar accepted here is the subset of
Python reprs those produce: strings, numbers (with `inf`/`nan`), None/True/False, lists,
tuples, dicts, sets, `Name(key=value, ...)` and `Name(value)` calls (dataclasses,
`PosixPath('x')`, `frozenset({...})`), enum reprs `<Enum.MEMBER: value>`, and other
`<...>` reprs (functions, objects), kept as their text. Nothing is ever evaluated: string
literals alone are decoded, by `ast.literal_eval` on the single literal token.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Any


class ReprError(ValueError):
    """Text that is not a repr this parser reads; `offset` is where it stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at character {offset}")
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Opaque:
    """A repr that carries no value (`<function f at 0x7f...>`, an unknown bare name)."""

    text: str


@dataclass(frozen=True, slots=True)
class Record:
    """`Name(key=value, ...)`: a dataclass repr; `fields` keep their order."""

    name: str
    fields: dict[str, Any]


_STRING = re.compile(r"""[rRbBuU]{0,2}('''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""")
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*\.?[\d_]*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)j?")
_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")
_ENUM = re.compile(r"<([A-Za-z_][\w.]*)\.([A-Za-z_]\w*): ")
_NAMED = {"None": None, "True": True, "False": False, "inf": math.inf, "nan": math.nan}
MAX_DEPTH = 200


def parse_repr(text: str, start: int = 0) -> tuple[Any, int]:
    """One value from `text[start:]`; returns (value, end offset)."""
    parser = _Parser(text)
    value = parser.value(start, 0)
    return value, parser.pos


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _ws(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in " \t\r\n":
            i += 1
        return i

    def value(self, i: int, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ReprError("nesting too deep", i)
        t = self.text
        i = self._ws(i)
        if i >= len(t):
            raise ReprError("unexpected end of text (truncated line?)", i)
        c = t[i]
        if c in "[(":
            items, i = self._seq(i + 1, "]" if c == "[" else ")", depth)
            self.pos = i
            return items if c == "[" else tuple(items)
        if c == "{":
            return self._brace(i + 1, depth)
        if c == "<":
            return self._angle(i, depth)
        m = _STRING.match(t, i)
        if m and (c in "'\"" or t[i:m.start(1)].isalpha()):
            return self._string(i, depth)
        if c == "-" and t.startswith("-inf", i):
            self.pos = i + 4
            return -math.inf
        m = _NUMBER.match(t, i)
        if m and m.group(0) not in "+-":
            self.pos = m.end()
            return _number(m.group(0), i)
        m = _NAME.match(t, i)
        if m:
            name = m.group(0)
            j = self._ws(m.end())
            if j < len(t) and t[j] == "(":
                return self._call(name, j + 1, depth)
            self.pos = m.end()
            if name in _NAMED:
                return _NAMED[name]
            return Opaque(name)
        raise ReprError(f"unexpected {c!r}", i)

    def _string(self, i: int, depth: int) -> Any:
        # Adjacent literals concatenate, as in Python source ('a' 'b').
        parts: list[Any] = []
        t = self.text
        while True:
            m = _STRING.match(t, i)
            if not m:
                break
            try:
                parts.append(ast.literal_eval(m.group(0)))
            except (SyntaxError, ValueError) as exc:
                raise ReprError(f"bad string literal ({exc})", i) from exc
            i = m.end()
            j = self._ws(i)
            if j < len(t) and t[j] in "'\"rRbBuU" and _STRING.match(t, j):
                i = j
                continue
            break
        self.pos = i
        return parts[0] if len(parts) == 1 else type(parts[0])().join(parts)

    def _seq(self, i: int, close: str, depth: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        t = self.text
        while True:
            i = self._ws(i)
            if i < len(t) and t[i] == close:
                return items, i + 1
            items.append(self.value(i, depth + 1))
            i = self._ws(self.pos)
            if i < len(t) and t[i] == ",":
                i += 1
            elif i < len(t) and t[i] == close:
                return items, i + 1
            else:
                raise ReprError(f"expected ',' or {close!r}", i)

    def _brace(self, i: int, depth: int) -> Any:
        t = self.text
        i = self._ws(i)
        if i < len(t) and t[i] == "}":
            self.pos = i + 1
            return {}
        first = self.value(i, depth + 1)
        j = self._ws(self.pos)
        if j < len(t) and t[j] == ":":
            out: dict[Any, Any] = {}
            key = first
            while True:
                out[_key(key)] = self.value(j + 1, depth + 1)
                j = self._ws(self.pos)
                if j < len(t) and t[j] == ",":
                    j = self._ws(j + 1)
                if j < len(t) and t[j] == "}":
                    self.pos = j + 1
                    return out
                key = self.value(j, depth + 1)
                j = self._ws(self.pos)
                if j >= len(t) or t[j] != ":":
                    raise ReprError("expected ':' in a dict", j)
        rest, end = self._seq(j + 1, "}", depth) if j < len(t) and t[j] == "," else ([], j + 1)
        if j >= len(t) or t[j] not in ",}":
            raise ReprError("expected ',' or '}' in a set", j)
        self.pos = end
        return {"__set__": sorted(([first] + rest), key=repr)}

    def _call(self, name: str, i: int, depth: int) -> Any:
        t = self.text
        fields: dict[str, Any] = {}
        positional: list[Any] = []
        while True:
            i = self._ws(i)
            if i < len(t) and t[i] == ")":
                break
            m = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)").match(t, i)
            if m:
                fields[m.group(1)] = self.value(m.end(), depth + 1)
            else:
                positional.append(self.value(i, depth + 1))
            i = self._ws(self.pos)
            if i < len(t) and t[i] == ",":
                i += 1
            elif not (i < len(t) and t[i] == ")"):
                raise ReprError(f"expected ',' or ')' in {name}(...)", i)
        self.pos = i + 1
        if not fields:
            short = name.rsplit(".", 1)[-1]
            if short in ("frozenset", "set", "tuple", "list") :
                items = positional[0] if positional else []
                if isinstance(items, dict) and "__set__" in items:
                    items = items["__set__"]
                return {"__set__": sorted(items, key=repr)} if short.endswith("set") else list(items)
            if len(positional) == 1:
                return positional[0]  # PosixPath('x'), Decimal('1'), defaultdict(...) -> the payload
        return Record(name, fields)

    def _angle(self, i: int, depth: int) -> Any:
        t = self.text
        m = _ENUM.match(t, i)
        if m:
            value = self.value(m.end(), depth + 1)
            j = self._ws(self.pos)
            if j < len(t) and t[j] == ">":
                self.pos = j + 1
                return value
        # <function f at 0x...>, <object ...>: up to the matching '>' (no nesting in such reprs).
        end = t.find(">", i)
        if end < 0:
            raise ReprError("unterminated <...>", i)
        self.pos = end + 1
        return Opaque(t[i:end + 1])


def _number(text: str, at: int) -> Any:
    clean = text.replace("_", "")
    try:
        if clean.endswith("j"):
            return Opaque(text)
        if re.fullmatch(r"[-+]?\d+", clean):
            return int(clean)
        return float(clean)
    except ValueError as exc:
        raise ReprError(f"bad number {text!r}", at) from exc


def _key(key: Any) -> Any:
    if isinstance(key, (list, dict)):
        return repr(key)
    return key


def to_plain(value: Any) -> Any:
    """Records -> dicts of their fields, sets -> sorted lists, tuples -> lists, Opaque -> text."""
    if isinstance(value, Record):
        return {k: to_plain(v) for k, v in value.fields.items()}
    if isinstance(value, dict):
        if set(value) == {"__set__"}:
            return [to_plain(v) for v in value["__set__"]]
        return {str(k) if not isinstance(k, (str, int, float, bool)) else k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Opaque):
        return value.text
    return value
