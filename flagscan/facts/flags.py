"""facts: the CLI flag inventory of one SGLang revision."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A place in SGLang source.

    `path` is relative to the parent of the `sglang` package root
    (``sglang/srt/server_args.py``) so it is the same for every provider;
    `line` is 1-based.
    """

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"

    @classmethod
    def parse(cls, text: str) -> Location:
        path, _, line = text.rpartition(":")
        return cls(path, int(line))


@dataclass(frozen=True, slots=True)
class UnknownValue:
    """A value the extractor could not compute statically; `text` is the source expression."""

    text: str

    def to_json(self) -> dict[str, str]:
        return {"unknown": self.text}


def _json_value(value: Any) -> Any:
    if isinstance(value, UnknownValue):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return value


def _from_json_value(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"unknown"}:
        return UnknownValue(value["unknown"])
    if isinstance(value, list):
        return [_from_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_json_value(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Flag:
    """One argparse registration as SGLang's parser would hold it.

    `type` is the name of the conversion callable (``"int"``, ``"str"``,
    ``"float"``, ``"json_list_type"``...) or None for actions that take no value.
    `action` is argparse's action name (``"store"``, ``"store_true"``...) or the
    name of a custom action class. `nargs` follows argparse (None, an int, ``"?"``,
    ``"*"``, ``"+"``). `default` and `choices` hold plain JSON values or
    `UnknownValue` where the source computes them in a way flagscan cannot follow.
    """

    dest: str
    options: tuple[str, ...]
    location: Location
    type: str | None = None
    default: Any = None
    choices: tuple[Any, ...] | UnknownValue | None = None
    action: str = "store"
    nargs: int | str | None = None
    const: Any = None
    required: bool = False
    help: str = ""
    deprecated: bool = False
    replacement: str | None = None
    # What the action does with the flag: "store" writes the value, "ignore" means
    # the action swallows the flag (a deprecated no-op), "store_const" writes
    # `stored`, "append" accumulates, "count" counts.
    semantics: str = "store"
    # The value a store_const-like action writes (argparse's `const` for standard
    # actions; for custom ones what their __call__ passes to setattr).
    stored: Any = None

    @property
    def takes_value(self) -> bool:
        return self.nargs not in (0,) and self.action not in (
            "store_true", "store_false", "store_const", "count",
            "append_const", "help", "version",
        )

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["location"] = str(self.location)
        data["options"] = list(self.options)
        data["default"] = _json_value(self.default)
        data["choices"] = _json_value(self.choices) if self.choices is not None else None
        data["const"] = _json_value(self.const)
        data["stored"] = _json_value(self.stored)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Flag:
        data = dict(data)
        data["location"] = Location.parse(data["location"])
        data["options"] = tuple(data["options"])
        data["default"] = _from_json_value(data.get("default"))
        choices = _from_json_value(data.get("choices"))
        data["choices"] = tuple(choices) if isinstance(choices, list) else choices
        data["const"] = _from_json_value(data.get("const"))
        data["stored"] = _from_json_value(data.get("stored"))
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Inventory:
    """Every flag of one revision's `sglang serve` parser, in registration order.

    `allow_abbrev` is what the release's ArgumentParser is built with (argparse's
    default is True). `config_option` is the option that merges a YAML file into
    argv (``--config``) when the release has one.
    """

    flags: tuple[Flag, ...]
    allow_abbrev: bool = True
    config_option: str | None = None
    notes: tuple[str, ...] = field(default=())

    def by_option(self) -> dict[str, Flag]:
        return {opt: f for f in self.flags for opt in f.options}

    def by_dest(self) -> dict[str, Flag]:
        out: dict[str, Flag] = {}
        for f in self.flags:
            out.setdefault(f.dest, f)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "flags": [f.to_json() for f in self.flags],
            "allow_abbrev": self.allow_abbrev,
            "config_option": self.config_option,
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Inventory:
        return cls(
            flags=tuple(Flag.from_json(f) for f in data["flags"]),
            allow_abbrev=data.get("allow_abbrev", True),
            config_option=data.get("config_option"),
            notes=tuple(data.get("notes", ())),
        )
