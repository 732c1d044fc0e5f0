"""verify: a prediction against what SGLang resolved; every difference classified.

Kinds (the `verify` JSON contract):
* `gap`: flagscan's model was wrong, or silent (it could not decide) about a value SGLang
  did settle on;
* `surprise`: SGLang changed a value the user set, and flagscan predicted exactly that;
* `unpredictable`: a setting rules/verify.toml lists as not derivable from flags, GPU and
  model (a random seed, a port, a path on the serving host).
Predicted and actual values are compared as JSON values (tuples = lists, 1 = 1.0 but
True != 1), since servers send JSON and protobuf Structs carry numbers as doubles.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from flagscan.ruledata import load
from flagscan.verify.observed import LogWarning, Observed


class Kind(str, Enum):
    SURPRISE = "surprise"
    GAP = "gap"
    UNPREDICTABLE = "unpredictable"


@dataclass(frozen=True, slots=True)
class Difference:
    setting: str            # dest, or internal_states[i].dest, or <rejection>
    predicted: Any
    actual: Any
    kind: Kind
    why: str
    user_value: Any = None
    user_given: bool = False
    locations: tuple[str, ...] = ()  # SGLang source lines of the predicted causes
    seen_in_log: int | None = None   # the log line that shows SGLang saying so
    certain: bool = True             # False: flagscan could not decide (predicted is null or one_of)

    def to_json(self) -> dict[str, Any]:
        data = {"setting": self.setting, "predicted": self.predicted, "actual": self.actual,
                "kind": self.kind.value, "why": self.why, "certain": self.certain,
                "locations": list(self.locations)}
        if self.user_given:
            data["user_value"] = self.user_value
        if self.seen_in_log is not None:
            data["seen_in_log"] = self.seen_in_log
        return data


@dataclass(frozen=True, slots=True)
class WarningMatch:
    """A predicted cause's message and the log line where SGLang printed it (or None)."""

    setting: str
    location: str
    message: str
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.setting, "location": self.location, "message": self.message,
                "log_line": self.line}


@dataclass(frozen=True, slots=True)
class VerifyReport:
    matched: int
    compared: int
    differences: tuple[Difference, ...]
    warnings: tuple[WarningMatch, ...]
    not_predicted: tuple[str, ...]  # settings SGLang reported that flagscan has no value for
    notes: tuple[str, ...]

    def count(self, kind: Kind) -> int:
        return sum(1 for d in self.differences if d.kind is kind)


@dataclass(frozen=True, slots=True)
class Rules:
    unpredictable: dict[str, tuple[str, str]]  # dest -> (when, why)
    runtime: frozenset[str]
    redacted: frozenset[str]  # placeholders a server sends instead of a secret


def rules() -> Rules:
    data = load("verify")
    table = {e["dest"]: (e.get("when", "not_given"), e["why"]) for e in data.get("unpredictable", [])}
    return Rules(table, frozenset(data.get("runtime", {}).get("keys", [])),
                 frozenset(data.get("redacted", {}).get("values", [])))


def comparable(value: Any) -> Any:
    """A prediction's value (tuples, enum members ...) as the JSON value a server would send."""
    from flagscan.evaluate.resolution.results import jsonable

    return jsonable(value)


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def compare(resolution: Any, observed: Observed, rule: Rules | None = None) -> VerifyReport:
    rule = rule or rules()
    diffs: list[Difference] = []
    matched = compared = 0
    not_predicted: list[str] = []
    for dest, actual in observed.values.items():
        if dest in rule.runtime:
            continue
        setting = resolution.settings.get(dest)
        if setting is None:
            not_predicted.append(dest)
            continue
        compared += 1
        diff = _judge(dest, setting, actual, rule)
        if diff is None:
            matched += 1
        else:
            diffs.append(diff)
    for i, rank in enumerate(observed.ranks):
        for dest, actual in rank.items():
            setting = resolution.settings.get(dest)
            if dest in rule.runtime or setting is None or dest not in observed.values:
                continue
            if equal(actual, observed.values[dest]):
                continue  # the rank agrees with the top level, judged there
            diff = _judge(f"internal_states[{i}].{dest}", setting, actual, rule, dest)
            if diff is not None:
                diffs.append(diff if diff.kind is not Kind.GAP else _rank_gap(diff, i))
    diffs.extend(_rejections(resolution, observed))
    warnings = tuple(_match_warnings(resolution, observed.warnings)) if observed.warnings else ()
    seen = {w.setting: w.line for w in warnings if w.line is not None}
    diffs = [_with_log(d, seen) for d in diffs]
    notes = list(observed.notes)
    return VerifyReport(matched, compared, tuple(diffs), warnings, tuple(sorted(not_predicted)), tuple(notes))


def nothing_compared(report: VerifyReport, resolution: Any, observed: Observed) -> str | None:
    """Why this verification compared nothing (None when it compared something).

    An empty prediction, an empty observation, or two that share no setting is not a
    pass: it says nothing about flagscan's model, so `verify` reports it as an error.
    A rejection SGLang raised is compared on its own, without settings.
    """
    if not resolution.settings and not resolution.rejections:
        return (f"flagscan predicted no settings for this command (the analysis produced none), "
                f"so nothing was compared with the {len(observed.values)} settings SGLang reported")
    if report.compared or observed.rejection is not None:
        return None
    if not observed.values:
        return f"SGLang reported no settings ({observed.source}), so nothing was compared"
    return (f"none of the {len(observed.values)} settings SGLang reported has a prediction "
            f"(flagscan predicted {len(resolution.settings)} others), so nothing was compared")


def _judge(name: str, setting: Any, actual: Any, rule: Rules, dest: str | None = None) -> Difference | None:
    dest = dest or name
    predicted = comparable(setting.value) if setting.certain else None
    options = [comparable(o) for o in setting.options] if (not setting.certain and setting.options) else []
    agree = (setting.certain and equal(predicted, actual)) or any(equal(o, actual) for o in options)
    user_value = comparable(setting.user_value) if setting.user_given else None
    locations = tuple(c.location for c in setting.because)
    shown = predicted if setting.certain else ({"one_of": options} if options else None)
    opaque = setting.certain and _opaque(predicted)
    certain = setting.certain and not opaque
    if agree and not opaque:
        if setting.origin == "adjusted" and setting.user_given and not equal(user_value, actual):
            why = "SGLang changed the value the command set, as predicted"
            return Difference(name, shown, actual, Kind.SURPRISE, why, user_value, True, locations)
        return None
    if isinstance(actual, str) and actual in rule.redacted:
        return Difference(name, shown, actual, Kind.UNPREDICTABLE, "the server redacts this value in what it "
                          "reports", user_value, setting.user_given, locations, certain=certain)
    if dest in rule.unpredictable:
        when, why = rule.unpredictable[dest]
        if when == "always" or not setting.user_given:
            return Difference(name, shown, actual, Kind.UNPREDICTABLE, why, user_value, setting.user_given,
                              locations, certain=certain)
    if opaque:
        why = "flagscan holds this value as an object it cannot compare"
    elif not setting.certain:
        needs = f" (needs: {', '.join(setting.needs)})" if setting.needs else ""
        why = f"flagscan could not decide this value{needs}"
    elif setting.origin == "adjusted":
        why = "flagscan predicted a different adjustment"
    elif setting.user_given:
        why = "SGLang changed the value the command set; flagscan predicted no change"
    else:
        why = "SGLang changed the default; flagscan predicted no change"
    return Difference(name, shown, actual, Kind.GAP, why, user_value, setting.user_given, locations,
                      certain=certain)


def _opaque(value: Any) -> bool:
    """jsonable() falls back to repr() for interpreter objects (`<CudaGraphConfig #410>`)."""
    if isinstance(value, str):
        return value.startswith("<") and value.endswith(">") and " #" in value
    if isinstance(value, list):
        return any(_opaque(v) for v in value)
    if isinstance(value, dict):
        return any(_opaque(v) for v in value.values())
    return False


def _rank_gap(diff: Difference, rank: int) -> Difference:
    from dataclasses import replace

    return replace(diff, why=f"rank {rank} runs with another value than the resolved one "
                             f"(changed after resolution, outside what flagscan models); {diff.why}")


def _rejections(resolution: Any, observed: Observed) -> list[Difference]:
    predicted = [r for r in resolution.rejections if r.certain]
    if observed.rejection is not None:
        actual = {"exception": observed.rejection.exception, "message": observed.rejection.message,
                  "location": observed.rejection.location}
        if resolution.rejections:
            return []  # rejected, as predicted (certainly or possibly)
        return [Difference("<rejection>", None, actual, Kind.GAP, "SGLang rejected the command; "
                           "flagscan predicted that it starts")]
    if predicted and observed.values:
        first = predicted[0]
        return [Difference("<rejection>", {"message": first.message, "location": first.location}, None,
                           Kind.GAP, "flagscan predicted a rejection; SGLang accepted the command",
                           locations=(first.location,))]
    return []


def _norm_text(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _match_warnings(resolution: Any, warnings: tuple[LogWarning, ...]) -> list[WarningMatch]:
    """Each predicted cause that has a message: the log line where SGLang printed it."""
    lines = [(w, _norm_text(w.message)) for w in warnings]
    out: list[WarningMatch] = []
    for dest, setting in resolution.settings.items():
        if setting.origin != "adjusted" or not setting.certain:
            continue
        for cause in setting.because:
            if not cause.message or not cause.certain:
                continue
            pattern = _message_pattern(cause.message)
            hit = next((w for w, text in lines if pattern is not None and pattern.search(text)), None)
            if hit is None and cause.location:
                hit = next((w for w in warnings if w.location == cause.location), None)
            out.append(WarningMatch(dest, cause.location, cause.message, hit.line if hit else None))
    return out


def _message_pattern(message: str) -> re.Pattern[str] | None:
    """A predicted message as a pattern: `{...}` parts the prediction left unrendered match anything."""
    chunks = [c for c in re.split(r"\{[^{}]*\}", _norm_text(message)) if c.strip()]
    if not chunks or sum(len(c) for c in chunks) < 12:
        return None
    return re.compile(".*?".join(re.escape(c.strip()) for c in chunks))


def _with_log(diff: Difference, seen: dict[str, int]) -> Difference:
    from dataclasses import replace

    line = seen.get(diff.setting)
    return replace(diff, seen_in_log=line) if line is not None else diff
