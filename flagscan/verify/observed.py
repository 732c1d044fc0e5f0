"""verify: what SGLang actually resolved, from a server, a log or the installed package."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class VerifyError(Exception):
    """A server, log or local run that cannot be read; one line, exit code 2."""


@dataclass(frozen=True, slots=True)
class LogWarning:
    """A message SGLang printed while resolving (an adjustment warning, usually)."""

    message: str
    location: str | None = None  # sglang/srt/server_args.py:2995 when the log (or --local) says
    line: int | None = None      # 1-based line in the log file

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "location": self.location, "line": self.line}


@dataclass(frozen=True, slots=True)
class Rejection:
    """SGLang refused the configuration (--local): the exception and where it was raised."""

    exception: str
    message: str
    location: str | None


@dataclass(frozen=True, slots=True)
class Observed:
    source: str                          # "http://h:30000/server_info", "log serve.log:12", "local"
    values: dict[str, Any]               # the resolved settings (top level)
    ranks: tuple[dict[str, Any], ...] = ()  # internal_states[i]: each rank's own view
    version: str | None = None           # SGLang's __version__ as the server reported it
    launch_argv: tuple[str, ...] | None = None  # what the server says it was launched with
    architectures: tuple[str, ...] | None = None
    warnings: tuple[LogWarning, ...] = ()
    rejection: Rejection | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # e.g. --local: the GPU as torch saw it
    notes: tuple[str, ...] = ()
