"""evaluate: what a resolution predicts (settings, rejections, causes) and their JSON form.

Kept apart from the interpreter that computes them: a warm run reads a cached resolution
back and renders it without importing the interpreter."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.values import ConfigView, EnumMember, Unknown
from flagscan.facts.flags import UnknownValue

if TYPE_CHECKING:
    from flagscan.evaluate.interp.envwrites import EnvSetting
    from flagscan.evaluate.interp.giveup import Stop


@dataclass
class Cause:
    location: str
    handler: str
    condition: str
    message: str | None
    certain: bool
    # the value is the field's own declared fallback (no step reacted to anything)
    fallback: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "handler": self.handler, "condition": self.condition,
                "message": self.message, "certain": self.certain}


@dataclass
class Setting:
    dest: str
    value: Any
    default: Any
    origin: str          # default | user | adjusted
    certain: bool
    user_value: Any = None
    user_given: bool = False
    because: list[Cause] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    options: list[Any] | None = None
    via: str | None = None   # the deprecated flag the user gave that SGLang translated into this one

    def to_json(self) -> dict[str, Any]:
        data = {"value": jsonable(self.value), "default": jsonable(self.default), "origin": self.origin,
                "certain": self.certain, "because": [c.to_json() for c in self.because]}
        if self.user_given:
            data["user_value"] = jsonable(self.user_value)
        if self.needs:
            data["needs"] = self.needs
        if self.options is not None:
            data["options"] = [jsonable(o) for o in self.options]
        return data


@dataclass
class Rejection:
    location: str
    handler: str
    condition: str
    message: str
    certain: bool
    exception: str
    needs: list[str] = field(default_factory=list)
    # the facts the tests assumed on its path stand for (model, env:X, runtime:...): what would decide it
    depends: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = {"location": self.location, "handler": self.handler, "condition": self.condition,
                "message": self.message, "certain": self.certain, "exception": self.exception,
                "phase": "resolution"}
        if self.needs:
            data["needs"] = self.needs
        if self.depends:
            data["depends"] = self.depends
        return data


@dataclass
class Resolution:
    settings: dict[str, Setting]
    rejections: list[Rejection]
    notes: list[str]
    completed: bool  # resolution ran to its end on at least one path
    # the record's private fields (`_..._explicitly_set`): bookkeeping, never shown as settings
    private: dict[str, Setting] = field(default_factory=dict)
    # where the interpreter could not follow SGLang's code
    stops: list[Stop] = field(default_factory=list)
    # environment variables the resolution sets or removes
    env: dict[str, EnvSetting] = field(default_factory=dict)
    # distribution -> the assumption about it that a test consulted (flagscan.evaluate.packages)
    packages: dict[str, str] = field(default_factory=dict)

    def adjusted(self) -> dict[str, Setting]:
        return {k: s for k, s in self.settings.items() if s.origin == "adjusted"}


def jsonable(value: Any) -> Any:
    if isinstance(value, Unknown):
        return None
    if isinstance(value, UnknownValue):
        return value.to_json()
    if isinstance(value, EnumMember):
        return jsonable(value.value) if not isinstance(value.value, Unknown) else value.name
    if isinstance(value, (set, frozenset)):  # no order of its own: sorted, for the same bytes every run
        return sorted((jsonable(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, ConfigView):
        return jsonable(value.data)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
