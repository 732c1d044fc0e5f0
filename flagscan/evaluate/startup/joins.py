"""evaluate: the startup phase: what the branches of an unknown test leave different needs what the test needed.

Where the two sides of `if X:` (X not known) write different values, joining the paths makes
an unknown of those values; that unknown is not known because X is not, so it needs what X
needed. Without this, a later test of the joined value needs nothing nameable and a raise under
it is counted as depending on the run: 0.5.10 ModelConfig sets attention_arch to MLA or MHA by
the draft model's architectures (its config.json is not given), ModelRunner keeps
`use_mla_backend = attention_arch == AttentionArch.MLA`, and create_trtllm_mla_backend's
`if not runner.use_mla_backend: raise` is possible only for want of the draft's config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.state import State, join_states
from flagscan.evaluate.interp.values import PartlySet, Unknown

if TYPE_CHECKING:
    from flagscan.evaluate.interp.interpreter import Interpreter as _Combined
else:
    _Combined = object  # the Interpreter it is combined with (predict.py): its members, for mypy only


class JoinNeeds(_Combined):
    """Interpreter mixin: an `if` on an unknown test joins its paths itself, adding the test's needs to
    the unknowns the join makes (put before SurvivalTracking, which reads the paths unjoined). On once the
    startup entries run (`join_needs`), as the resolution is run as it is elsewhere."""

    join_needs: bool = False

    def exec_if(self, stmt: Any, state: State, module: Any) -> list[tuple[str, State, Any]]:
        outcomes: list[tuple[str, State, Any]] = super().exec_if(stmt, state, module)
        nexts = [s for kind, s, _ in outcomes if kind == "next"]
        if len(nexts) < 2 or not getattr(self, "join_needs", False):
            return outcomes
        joined = join_states(nexts, "branch")   # as the block running the statement would
        assumed: dict[str, frozenset[str]] = getattr(self, "assumed_needs", {})
        depth = len(joined.assumptions)
        needs = frozenset().union(*(assumed.get(a, frozenset()) for s in nexts for a in s.assumptions[depth:]))
        if needs:
            _add_needs(joined, nexts, needs)
        return [o for o in outcomes if o[0] != "next"] + [("next", joined, None)]


def _add_needs(joined: State, paths: list[State], needs: frozenset[str]) -> None:
    """`needs` on each unknown the join made (one that none of the paths held)."""
    if any(joined.locals is not s.locals for s in paths):
        for key, value in list(joined.locals.items()):
            if _made(value, [s.locals.get(key) for s in paths]):
                joined.locals[key] = _with(value, needs)
    for oid in set().union(*(s.modified for s in paths)):
        attrs = joined.heap.get(oid)
        if attrs is None or any(attrs is s.heap.get(oid) for s in paths):
            continue   # not merged by the join: the dict of one path, shared
        for key, value in list(attrs.items()):
            if _made(value, [(s.heap.get(oid) or {}).get(key) for s in paths]):
                attrs[key] = _with(value, needs)


def _made(value: Any, inputs: list[Any]) -> bool:
    return type(value) in (Unknown, PartlySet) and not any(value is v for v in inputs)


def _with(value: Unknown, needs: frozenset[str]) -> Unknown:
    if isinstance(value, PartlySet):   # whether it is set is not known for want of the test too
        return PartlySet(value.why, value.needs | needs, value.value)
    return Unknown(value.why, value.needs | needs, value.options, value.truth)
