"""diffing: two revisions' effects -> added, removed, changed, matched by line-independent keys.

Effects with the same key (kind + target + condition atoms) are the same rule; when
their values differ the rule changed. Left-over effects on the same target (writes)
or with the same message (rejections) are paired as "condition changed" when they
look alike; the rest are added or removed. A key found in both revisions at another
file, handler or line has moved (e.g. `_handle_*` -> a hook) and is not a change.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from flagscan.diffing.model import EffectChanges
from flagscan.facts.effects import Effect

PAIR_CONDITION = 0.6   # condition similarity to call two writes of one target "the same rule, changed"
PAIR_MESSAGE = 0.85    # message similarity to call two rejections "the same check, changed"


def _group(effects: Iterable[Effect], dests: set[str]) -> dict[tuple[str, str, str], list[Effect]]:
    out: dict[tuple[str, str, str], list[Effect]] = defaultdict(list)
    for e in effects:
        if e.kind == "write" and e.target not in dests:
            continue  # a private attribute or a helper's local record: not a setting
        out[e.key].append(e)
    return out


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _change(what: str, old: Effect, new: Effect) -> dict[str, Any]:
    return {"kind": old.kind, "target": old.target or None, "what": what, "old": old.to_json(), "new": new.to_json()}


def diff_effects(old: Iterable[Effect], new: Iterable[Effect], dests: set[str]) -> EffectChanges:
    a, b = _group(old, dests), _group(new, dests)
    changed: list[dict[str, Any]] = []
    moved = 0
    gone: list[Effect] = []
    came: list[Effect] = []
    for key in a.keys() | b.keys():
        xs, ys = a.get(key, []), b.get(key, [])
        if not xs or not ys:
            (gone if xs else came).extend(xs or ys)
            continue
        old_values, new_values = sorted(x.value for x in xs), sorted(y.value for y in ys)
        if old_values == new_values:
            if {x.location.rsplit(":", 1)[0] for x in xs} != {y.location.rsplit(":", 1)[0] for y in ys} \
                    or {x.handler for x in xs} != {y.handler for y in ys}:
                moved += 1
            continue
        what = "message" if key[0] == "reject" else "value"
        if len(xs) == 1 and len(ys) == 1:
            changed.append(_change(what, xs[0], ys[0]))
        else:
            extra_old = [x for x in xs if x.value not in new_values]
            extra_new = [y for y in ys if y.value not in old_values]
            for x, y in zip(extra_old, extra_new):
                changed.append(_change(what, x, y))
            gone.extend(extra_old[len(extra_new):])
            came.extend(extra_new[len(extra_old):])
    pairs, gone, came = _pair(gone, came)
    changed.extend(_change("condition", x, y) for x, y in pairs)
    return EffectChanges(
        added=tuple(sorted((e.to_json() for e in came), key=_order)),
        removed=tuple(sorted((e.to_json() for e in gone), key=_order)),
        changed=tuple(sorted(changed, key=lambda c: (c["kind"], c["target"] or "", c["what"], c["old"]["condition"]))),
        moved=moved,
    )


def _order(e: dict[str, Any]) -> tuple[Any, ...]:
    """An effect's JSON by kind, target, condition, location: the order added/removed are listed in."""
    return e["kind"], e.get("target") or "", e.get("condition", ""), e.get("location", "")


def _pair(gone: list[Effect], came: list[Effect]) -> tuple[list[tuple[Effect, Effect]], list[Effect], list[Effect]]:
    candidates = []
    for i, x in enumerate(gone):
        for j, y in enumerate(came):
            if x.kind != y.kind or _handler(x) != _handler(y):
                continue  # a rule changes within its handler (`_handle_x` and hook `handle_x` are one)
            if x.kind == "write" and x.target == y.target:
                score = _ratio(x.condition, y.condition) + (0.5 if x.value == y.value else 0.0)
                if score >= PAIR_CONDITION:
                    candidates.append((score, i, j))
            elif x.kind == "reject":
                score = _ratio(x.value, y.value)
                if score >= PAIR_MESSAGE:
                    candidates.append((score, i, j))
    used_i: set[int] = set()
    used_j: set[int] = set()
    pairs = []
    for _score, i, j in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            pairs.append((gone[i], came[j]))
    return (pairs, [x for i, x in enumerate(gone) if i not in used_i],
            [y for j, y in enumerate(came) if j not in used_j])


def _handler(e: Effect) -> str:
    return e.handler.lstrip("_")
