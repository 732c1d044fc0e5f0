"""shared: the diagnostic record every stage reports through (data, never an exception)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True, slots=True)
class FileLocation:
    """A place in the user's launch file; 1-based line and column (column 0 when unknown)."""

    path: str
    line: int
    column: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column}


@dataclass(frozen=True, slots=True)
class Evidence:
    """A place in SGLang source (``sglang/srt/server_args.py:1088``) and the text there."""

    location: str
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "text": self.text}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    flag: str | None = None
    location: FileLocation | None = None
    evidence: tuple[Evidence, ...] = field(default=())
    # Machine-readable extras (suggestion, replacement, value...), never prose.
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "flag": self.flag,
            "message": self.message,
            "location": self.location.to_json() if self.location else None,
            "evidence": [e.to_json() for e in self.evidence],
            **({"data": self.data} if self.data else {}),
        }
