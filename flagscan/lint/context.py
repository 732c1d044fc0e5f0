"""lint: what the rules of one launch command share, each fact computed once and only when asked.

Rules declare what they need (NEEDS) the way LibCST metadata providers are declared;
the engine skips a rule whose needs cannot be met (no GPU given, no upgrade target)
instead of threading optional arguments through every check.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import FileLocation, Problem
from flagscan.facts.flags import Flag, Inventory

if TYPE_CHECKING:  # the later stages are imported when a fact is first asked for
    from flagscan.evaluate import Scenario
    from flagscan.evaluate.resolution.diagnose import Outcome
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.evaluate.startup.results import StartupResult
    from flagscan.inputs import ParsedCommand
    from flagscan.lint.gates_port import GateVerdict



@dataclass(frozen=True, slots=True)
class Target:
    """The SGLang revision a file is linted against."""

    root: Path
    cache_dir: Path | None
    inventory: Inventory
    version: str


@dataclass(frozen=True, slots=True)
class Upgrade:
    """A later revision the user plans to move to (the upgrade rules compare against it);
    `root` is needed only by the rules that resolve the command there too."""

    inventory: Inventory
    version: str
    root: Path | None = None
    cache_dir: Path | None = None


class Context:
    """Facts about one launch command, for the rules. Providers: `parsed` (always),
    `resolution` and `outcomes` (need a GPU: "resolution"), `startup` ("startup"), `gates` ("gates"),
    `upgrade` ("upgrade")."""

    def __init__(self, parsed: ParsedCommand, target: Target, scenario: Scenario | None,
                 upgrade: Upgrade | None = None) -> None:
        self.parsed = parsed
        self.command = parsed.command
        self.target = target
        self.scenario = scenario
        self.upgrade = upgrade
        # computed on first use (None: not yet; the gates' own None means "not analysed")
        self._resolution: Resolution | None = None
        self._outcomes: list[Outcome] | None = None
        self._gates: dict[str, GateVerdict] | None = None
        self._gates_done = False
        self._after: tuple[ParsedCommand, Resolution] | None = None
        self._startup: StartupResult | None = None
        self._startup_failed: Exception | None = None
        self.notes: list[str] = []

    # -- always available ---------------------------------------------------------------
    @property
    def inventory(self) -> Inventory:
        return self.target.inventory

    @property
    def command_location(self) -> FileLocation:
        args = self.command.args
        return FileLocation(self.command.path, self.command.line, args[0].column if args else 1)

    def flag(self, option_or_dest: str | None) -> Flag | None:
        if not option_or_dest:
            return None
        return self.inventory.by_option().get(option_or_dest) or self.inventory.by_dest().get(option_or_dest)

    def problems(self, kinds: Iterable[Any]) -> list[Problem]:
        """The input stage's problems of these kinds (`flagscan.diagnostics.ProblemKind`), in order."""
        wanted = set(kinds)
        return [p for p in self.parsed.problems if p.kind in wanted]

    def available(self, needs: frozenset[str]) -> bool:
        if needs & {"resolution", "gates", "startup"} and self.scenario is None:
            return False
        if "upgrade" in needs and self.upgrade is None:
            return False
        if "upgrade-resolution" in needs and (self.upgrade is None or self.upgrade.root is None
                                               or self.scenario is None):
            return False
        if "gates" in needs and self.gates is None:
            return False  # not analysed: its findings (and suppressions) cannot be judged
        return True

    @property
    def given_scenario(self) -> Scenario:
        """The scenario, for the providers and rules that need one (the engine runs them only then)."""
        if self.scenario is None:
            raise LookupError("no GPU given: this fact needs a scenario")
        return self.scenario

    @property
    def given_upgrade(self) -> Upgrade:
        """The upgrade target, for the rules that need one (the engine runs them only then)."""
        if self.upgrade is None:
            raise LookupError("no upgrade target: this fact needs one")
        return self.upgrade

    # -- computed on first use ------------------------------------------------------------
    @property
    def resolution(self) -> Resolution:
        if self._resolution is None:
            from flagscan.evaluate import predict
            from flagscan.progress import RESOLVING, activity

            values = {dest: v.value for dest, v in self.parsed.values.items()}
            with activity(RESOLVING):
                self._resolution = predict(self.target.root, self.target.cache_dir, self.inventory, values,
                                           self.given_scenario)
            self.notes.extend(self._resolution.notes)
        return self._resolution

    @property
    def startup(self) -> StartupResult:
        """What SGLang's startup code does with the resolved settings (flagscan.evaluate.startup)."""
        if self._startup_failed is not None:
            raise self._startup_failed
        if self._startup is None:
            from flagscan.evaluate.startup.predict import predict_startup
            from flagscan.progress import STARTING, activity

            values = {dest: v.value for dest, v in self.parsed.values.items()}
            with activity(STARTING):
                self._startup = predict_startup(self.target.root, self.target.cache_dir, self.inventory, values,
                                                self.given_scenario)
        return self._startup

    def start_early(self) -> None:
        """Begin the startup phase now, before the runtime gates ask for the tree's reads: when
        those are being parsed in the background (a cold run), the parse then overlaps this
        phase. Its interpreter's run of the resolution entry gives the resolution the rules
        read too, and a forked child goes on with the startup entries while this process
        goes on to the gates. Where no child can be forked, the resolution is computed in one
        beside this phase and the phase here. A failure is kept and raised to the rule that
        asks for the phase (it says why)."""
        from flagscan.evaluate.startup.predict import begin_startup

        values = {dest: v.value for dest, v in self.parsed.values.items()}
        try:
            if self._resolution is None and self.scenario is not None \
                    and begin_startup(self.target.root, self.target.cache_dir, self.inventory, values, self.scenario):
                return
        except Exception as exc:
            self._startup_failed = exc
            return
        if self._resolution is None and self.scenario is not None:
            from flagscan.evaluate import predict_in_background

            predict_in_background(self.target.root, self.target.cache_dir, self.inventory, values, self.scenario)
        try:
            _ = self.startup
        except Exception as exc:
            self._startup_failed = exc

    def outcomes(self, kinds: Iterable[Any]) -> list[Outcome]:
        """What the resolution did to the command (flagscan.evaluate.resolution.diagnose.Outcome), of these
        kinds, in the resolution's order."""
        if self._outcomes is None:
            from flagscan.evaluate.resolution.diagnose import outcomes

            self._outcomes = outcomes(self.resolution, self.parsed)
        wanted = set(kinds)
        return [o for o in self._outcomes if o.kind in wanted]

    @property
    def gates(self) -> dict[str, GateVerdict] | None:
        """Per-flag runtime verdicts from flagscan.evaluate.gates, or None without a GPU to analyse for."""
        if not self._gates_done:
            from flagscan.lint.gates_port import flag_verdicts

            self._gates, self._gates_done = flag_verdicts(self), True
            if self._gates is None:
                self.notes.append("gates: not analysed (no --gpu given)")
        return self._gates

    @property
    def after_upgrade(self) -> tuple[ParsedCommand, Resolution]:
        """(parsed command, resolution) at the upgrade target, for the same scenario."""
        if self._after is None:
            from flagscan.evaluate import predict
            from flagscan.inputs import parse_command

            upgrade = self.given_upgrade
            if upgrade.root is None:
                raise LookupError("the upgrade target has no source tree to resolve with")
            parsed = parse_command(self.command, upgrade.inventory)
            values = {dest: v.value for dest, v in parsed.values.items()}
            from flagscan.progress import RESOLVING, activity

            with activity(RESOLVING):
                resolution = predict(upgrade.root, upgrade.cache_dir, upgrade.inventory, values, self.given_scenario)
            self._after = (parsed, resolution)
        return self._after
