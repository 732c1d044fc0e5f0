"""report: what the renderers read of the records the stages above build, as Protocols.

`report/` imports no stage above `evaluate/` (tests/test_layers.py); the launch commands
(`inputs`), lint results (`lint`) and verify results (`verify`) it renders are described
here by what is read of them, and the records there are checked against these shapes
wherever they are passed in. Members are read-only: the records are frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from flagscan.diagnostics import Diagnostic, FileLocation


class Word(Protocol):
    """One argument of a launch command (flagscan.inputs.ArgToken)."""

    @property
    def text(self) -> str: ...


class Command(Protocol):
    """A launch command found in a file (flagscan.inputs.LaunchCommand)."""

    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def launcher(self) -> Sequence[str]: ...
    @property
    def args(self) -> Sequence[Word]: ...
    @property
    def env(self) -> Mapping[str, str]: ...


class Given(Protocol):
    """A value the command gives a flag (flagscan.inputs.FlagValue)."""

    @property
    def value(self) -> Any: ...
    @property
    def option(self) -> str: ...
    @property
    def location(self) -> FileLocation | None: ...


class Checked(Protocol):
    """A parsed command with its input findings (flagscan.lint.findings.CheckedCommand)."""

    @property
    def command(self) -> Command: ...
    @property
    def values(self) -> Mapping[str, Given]: ...
    @property
    def diagnostics(self) -> Sequence[Diagnostic]: ...


class CommandFindings(Protocol):
    """One linted launch command (flagscan.lint.model.CommandResult)."""

    @property
    def line(self) -> int: ...
    @property
    def launcher(self) -> Sequence[str]: ...
    @property
    def notes(self) -> Sequence[str]: ...


class FileFindings(Protocol):
    """A linted file (flagscan.lint.model.FileResult)."""

    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def commands(self) -> Sequence[CommandFindings]: ...
    @property
    def diagnostics(self) -> Sequence[Diagnostic]: ...
    @property
    def suppressed(self) -> int: ...


class Kind(Protocol):
    """A verify difference's kind (flagscan.verify.compare.Kind): gap, surprise, unpredictable."""

    @property
    def value(self) -> str: ...


class Difference(Protocol):
    """A setting whose prediction and observed value differ (flagscan.verify.compare.Difference)."""

    @property
    def setting(self) -> str: ...
    @property
    def predicted(self) -> Any: ...
    @property
    def actual(self) -> Any: ...
    @property
    def kind(self) -> Kind: ...
    @property
    def why(self) -> str: ...
    @property
    def user_value(self) -> Any: ...
    @property
    def user_given(self) -> bool: ...
    @property
    def locations(self) -> Sequence[str]: ...
    @property
    def seen_in_log(self) -> int | None: ...

    def to_json(self) -> dict[str, Any]: ...


class LogMatch(Protocol):
    """A predicted cause's message and where SGLang logged it (flagscan.verify.compare.WarningMatch)."""

    @property
    def line(self) -> int | None: ...

    def to_json(self) -> dict[str, Any]: ...


class Verified(Protocol):
    """A prediction compared with what SGLang resolved (flagscan.verify.compare.VerifyReport)."""

    @property
    def matched(self) -> int: ...
    @property
    def compared(self) -> int: ...
    @property
    def differences(self) -> Sequence[Difference]: ...
    @property
    def warnings(self) -> Sequence[LogMatch]: ...
    @property
    def not_predicted(self) -> Sequence[str]: ...
    @property
    def notes(self) -> Sequence[str]: ...


class Observation(Protocol):
    """What a running or installed SGLang resolved (flagscan.verify.observed.Observed)."""

    @property
    def source(self) -> str: ...
    @property
    def version(self) -> str | None: ...
    @property
    def ranks(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def facts(self) -> Mapping[str, Any]: ...
    @property
    def notes(self) -> Sequence[str]: ...
