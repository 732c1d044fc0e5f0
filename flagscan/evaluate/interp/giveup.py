"""evaluate: the one place the interpreter gives up on code it cannot follow, or stops at a bound.

A give-up is "flagscan could not follow this code", never "a fact was not given"
(hardware, model or environment left open: that is an ordinary `Unknown`). Each
give-up is a `Stop` the interpreter keeps (`Interpreter.stops`) so that a result
can say where analysis stopped and what became unknown; under `FLAGSCAN_STRICT=1`
it raises (flagscan.strict.GaveUp) instead, naming the construct and the location.

A bound is a limit flagscan chose for itself (call depth, recursion levels, loop
passes, the step budget): the code could be followed, flagscan decided not to go
further. It is reported exactly as a give-up is (the same `Stop`, the same "not
followed" / "stopped" entries, FS403), but it is not a defect of the interpreter,
so it does not raise under `FLAGSCAN_STRICT=1`. A construct the interpreter does not
model is never a bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flagscan import strict


@dataclass(frozen=True, slots=True)
class Stop:
    """Analysis stopped at `location` (sglang/srt/x.py:12) on `construct`; `what` is unknown.
    `bound`: the stop is one of flagscan's own limits, not code it could not follow."""

    location: str
    construct: str
    what: str
    bound: bool = field(default=False, compare=False)
    # what the values it stopped on need (a bound on values not known: the model not given)
    needs: frozenset[str] = field(default=frozenset(), compare=False)

    def message(self) -> str:
        return f"analysis stopped at {self.location}: {self.construct}; {self.what} is unknown"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"location": self.location, "construct": self.construct, "unknown": self.what}
        if self.needs:
            out["needs"] = sorted(self.needs)
        return out


def give_up(stops: list[Stop], construct: str, location: str, what: str = "its value") -> Stop:
    """Record (or, under FLAGSCAN_STRICT=1, raise) that the interpreter could not follow `construct`."""
    stop = Stop(location, construct, what)
    strict.give_up(f"{construct}; {what} is unknown", f"analysis stopped at {location}")
    stops.append(stop)
    return stop


def bound(stops: list[Stop], limit: str, location: str, what: str = "its value",
          needs: frozenset[str] = frozenset()) -> Stop:
    """Record that analysis stopped at one of flagscan's own limits (`limit`, e.g. "recursion of f
    beyond 3 levels"). Reported as a give-up is; never raises, FLAGSCAN_STRICT=1 or not. `needs`:
    what the values it stopped on need, where the limit is on values not known."""
    stop = Stop(location, limit, what, bound=True, needs=needs)
    stops.append(stop)
    return stop
