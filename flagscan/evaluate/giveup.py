"""evaluate: the one place the interpreter gives up on code it cannot follow.

A give-up is "flagscan could not follow this code", never "a fact was not given"
(hardware, model or environment left open: that is an ordinary `Unknown`). Each
give-up is a `Stop` the interpreter keeps (`Interpreter.stops`) so that a result
can say where analysis stopped and what became unknown; under `FLAGSCAN_STRICT=1`
it raises (flagscan.strict.GaveUp) instead, naming the construct and the location.
"""

from __future__ import annotations

from dataclasses import dataclass

from flagscan import strict


@dataclass(frozen=True, slots=True)
class Stop:
    """Analysis stopped at `location` (sglang/srt/x.py:12) on `construct`; `what` is unknown."""

    location: str
    construct: str
    what: str

    def message(self) -> str:
        return f"analysis stopped at {self.location}: {self.construct}; {self.what} is unknown"

    def to_json(self) -> dict[str, str]:
        return {"location": self.location, "construct": self.construct, "unknown": self.what}


def give_up(stops: list[Stop], construct: str, location: str, what: str = "its value") -> Stop:
    """Record (or, under FLAGSCAN_STRICT=1, raise) that the interpreter could not follow `construct`."""
    stop = Stop(location, construct, what)
    strict.give_up(f"{construct}; {what} is unknown", f"analysis stopped at {location}")
    stops.append(stop)
    return stop
