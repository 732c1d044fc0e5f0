"""shared: the diagnostic record lint rules report through, and the neutral problem record the
input stage hands them (data, never an exception).

A stage before lint states what it found as a `Problem` (its kind, place and data, no code,
severity or wording); the lint rule whose `REPORTS` names that kind turns it into its
`Diagnostic`, as ruff's `message()` and Fixit's `report()` do.
"""

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


class ProblemKind(str, Enum):
    """What is wrong with a launch command's arguments, as the input stage sees it."""

    UNKNOWN_OPTION = "unknown-option"            # data: suggestion
    STRAY_ARGUMENT = "stray-argument"            # data: text, after (the switch before it, or None)
    AMBIGUOUS_OPTION = "ambiguous-option"        # data: candidates
    ABBREVIATED_OPTION = "abbreviated-option"    # data: abbreviation, resolved
    DEPRECATED_OPTION = "deprecated-option"      # data: replacement, ignored
    DUPLICATE_OPTION = "duplicate-option"        # data: first (its location)
    MISSING_REQUIRED = "missing-required"
    UNEXPANDED_VARIABLE = "unexpanded-variable"  # data: text, variables
    INVALID_TYPE = "invalid-type"                # data: value, type_name
    INVALID_CHOICE = "invalid-choice"            # data: value, choices
    MISSING_VALUE = "missing-value"              # data: expected (values), explicit (the `=value` given)
    PARSER_REJECTS = "parser-rejects"            # data: message (argparse's own)
    CONFIG_NOT_MERGED = "config-not-merged"      # data: config (the exact option SGLang merges)
    CONFIG_SEVERAL = "config-several"
    CONFIG_NO_FILE = "config-no-file"            # data: config
    CONFIG_NOT_YAML = "config-not-yaml"          # data: file
    CONFIG_NOT_FOUND = "config-not-found"        # data: file
    CONFIG_UNREADABLE = "config-unreadable"      # data: file, error
    CONFIG_NOT_MAPPING = "config-not-mapping"    # data: file
    CONFIG_UNSUPPORTED = "config-unsupported-action"  # data: key, action (refused by this release's merge)
    CONFIG_NEWER_ACTION = "config-newer-action"  # data: key, action (merged only by newer releases)


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem with a launch command's arguments: `option` is the option it concerns (as
    argparse matched it), `location` the place in the launch file; `data` the facts a rule
    words it from (JSON-serialisable)."""

    kind: ProblemKind
    location: FileLocation | None
    option: str | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


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
