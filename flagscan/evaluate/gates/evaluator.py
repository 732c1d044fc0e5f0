"""evaluate: runtime gates: can a setting change behaviour on this GPU (with these settings)?

Each read of a setting is live when all its guards hold (and, for a read in a
module-level function, when one of that function's call sites is live). A
guard is evaluated three-valued in its own module, executed abstractly under
the GPU profile, so `_is_sm90_supported` is computed from SGLang's own
definition. A setting is NO_OP only when every read is certainly dead; any
unknown keeps it CONDITIONAL, with what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.gates.store import GateInterpreter
from flagscan.evaluate.interp.base import Budget, Dead, truth
from flagscan.evaluate.interp.values import Unknown
from flagscan.facts import ir
from flagscan.facts.ir import view
from flagscan.facts.reads import CallSite, FileFacts, Guard, Read, reads_in, transform
from flagscan.strict import give_up

if TYPE_CHECKING:
    from flagscan.extract.reads import TreeReads

SELF = "self"


class Status(str, Enum):
    EFFECTIVE = "EFFECTIVE"
    NO_OP = "NO_OP"
    CONDITIONAL = "CONDITIONAL"
    UNREAD = "UNREAD"
    REJECTED = "REJECTED"


@dataclass(slots=True)
class GuardResult:
    guard: Guard
    truth: bool | None
    needs: frozenset[str]
    where: str  # the module path the guard belongs to


@dataclass(slots=True)
class ReadVerdict:
    read: Read
    live: bool | None
    guards: list[GuardResult]
    callers: str                       # not followed | none found | incomplete | followed
    caller_results: list[tuple[CallSite, bool | None, list[GuardResult]]] = field(default_factory=list)
    needs: frozenset[str] = frozenset()

    @property
    def deciding(self) -> list[GuardResult]:
        """The guards that are certainly false (why a dead read is dead)."""
        return [g for g in self.guards if g.truth is False]


@dataclass(slots=True)
class FlagVerdict:
    dest: str
    status: Status
    reads: list[ReadVerdict]
    needs: list[str]
    steers: list[str] = field(default_factory=list)
    rejections: list[dict[str, Any]] = field(default_factory=list)


class GateEvaluator:
    """Verdicts for one tree, one GPU profile and (optionally) one set of effective settings."""

    def __init__(self, tree_reads: TreeReads, dests: set[str], interp: GateInterpreter,
                 settings: dict[str, Any] | None = None) -> None:
        self.tree = tree_reads
        self.dests = frozenset(dests)
        self.interp = interp
        self.settings = settings
        self.by_dest: dict[str, list[tuple[Read, FileFacts]]] = {}
        self.calls: dict[str, list[tuple[CallSite, FileFacts]]] = {}
        for rel, facts in tree_reads.files.items():
            for site in facts.calls:  # the resolution calls runtime helpers (0.5.20+ hooks) too
                self.calls.setdefault(site.callee.rpartition(".")[2], []).append((site, facts))
            if tree_reads.roles.get(rel) != "runtime":
                continue
            for read in facts.reads:
                dest = read.dest(self.dests)
                if dest is not None:
                    self.by_dest.setdefault(dest, []).append((read, facts))
        self._memo: dict[tuple[int, str | None], GuardResult] = {}
        self._truthy: str | None = None   # the subject taken as set (truthy) while testing a guard

    # -- settings ------------------------------------------------------------------------
    def setting_value(self, chain: list[str], namespaced: bool, subject: str | None) -> Any:
        dest = Read(tuple(chain), namespaced, "", "", 0, "", ()).dest(self.dests)
        if dest is None:
            return Unknown(".".join(chain), {f"runtime:{'.'.join(chain)}"})
        if dest == subject:
            return True if self._truthy == dest else Unknown(dest, {SELF})
        if self.settings is not None and dest in self.settings:
            return self.settings[dest]
        return Unknown(dest, {f"setting:{dest}"})

    # -- guards --------------------------------------------------------------------------
    def guard(self, guard: Guard, facts: FileFacts, subject: str | None) -> GuardResult:
        mentions = subject if subject is not None and _mentions(guard.test, subject) else None
        key = (id(guard), mentions)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        t, needs = self.test(guard.test, facts, guard.scope, subject, guard.line)
        if t is not None and not guard.polarity:
            t = not t
        if t is None and mentions and guard.polarity:
            # `if other or server_args.X:` guarding a read of X: giving X (truthy) makes it hold
            self._truthy = subject
            try:
                given, _ = self.test(guard.test, facts, guard.scope, subject, guard.line)
            finally:
                self._truthy = None
            if given is True:
                t, needs = True, frozenset({SELF})
        result = GuardResult(guard, t, needs, facts.path)
        self._memo[key] = result
        return result

    def test(self, test: Any, facts: FileFacts, scope: str, subject: str | None,
             line: int = 0) -> tuple[bool | None, frozenset[str]]:
        """Three-valued truth of a guard test and, when unknown, what it needs."""
        kind = test[0] if isinstance(test, list) and test else None
        if kind == "bool":
            want = test[1] == "or"   # the value that decides the chain
            results = []
            for op in test[2]:
                # in Python's order: an operand after the deciding one is never evaluated
                # (minimax_m3.py `router_gemv is not None and router_gemv_supported(...)`)
                t, n = self.test(op, facts, scope, subject, line)
                if t is want:
                    return want, frozenset()
                results.append((t, n))
            unknown = [n for t, n in results if t is None]
            if unknown:
                return None, frozenset().union(*unknown)
            return (not want), frozenset()
        if kind == "un" and test[1] == "not":
            t, needs = self.test(test[2], facts, scope, subject, line)
            return (None if t is None else not t), needs
        if kind == "read":
            value = self.setting_value(test[1], test[2], subject)
            return _truth(value, test)
        if kind == "unk":
            return None, frozenset({f"runtime:{test[1]}"})
        module = self.interp.module_for(facts)
        if module is None:
            return None, frozenset({f"module:{facts.module}"})
        local_names = facts.scopes.get(scope, [])
        reads: dict[str, Any] = {}
        ir = _substitute(test, reads, self, subject)
        state = self.interp.guard_state(local_names)
        state.locals.update(reads)
        first_call = self.interp.first_call_globals(facts.module, scope, line)
        saved = {name: module.globals[name] for name in first_call if name in module.globals}
        module.globals.update(first_call)
        try:
            self.interp.top_level()
            for stmt in self.interp.local_imports(facts.module, scope, line):
                self.interp.exec_stmt(stmt, state, module)
            value = self.interp.eval(ir, state, module)
        except (Dead, Budget, RecursionError):
            return None, frozenset({f"runtime:{_short(test)}"})
        except Exception as exc:  # an interpreter gap is an unknown, never a verdict; said in its needs
            give_up(f"{type(exc).__name__}: {exc}", f"guard {_short(test)}")
            return None, frozenset({f"stopped:{type(exc).__name__} evaluating {_short(test)}"})
        finally:
            module.globals.update(saved)
        return _truth(value, test)

    # -- reads ---------------------------------------------------------------------------
    def read(self, read: Read, facts: FileFacts, subject: str) -> ReadVerdict:
        results = [self.guard(g, facts, subject) for g in read.guards]
        live, needs = _conjoin(results)
        callers, sites = self.callers(read, facts)
        caller_results: list[tuple[CallSite, bool | None, list[GuardResult]]] = []
        if live is not False and callers == "followed":
            any_true, unknown = False, []
            for site, site_facts in sites:
                rs = [self.guard(g, site_facts, subject) for g in site.guards]
                t, n = _conjoin(rs)
                caller_results.append((site, t, rs))
                if t is not False and site.kind == "ref":
                    # passed on as a value (a hook, a callback): reached when that is called, which is not followed
                    unknown.append(n | {f"runtime:call through the reference at {site.path}:{site.line}"})
                elif t is True:
                    any_true = True
                elif t is None:
                    unknown.append(n)
            if not any_true:
                if unknown:
                    needs = needs | frozenset().union(*unknown)
                    live = None   # not False here (tested above): the callers decide, and are not known
                else:
                    live = False
        return ReadVerdict(read, live, results, callers, caller_results, needs)

    def callers(self, read: Read, facts: FileFacts) -> tuple[str, list[tuple[CallSite, FileFacts]]]:
        """Call sites of the module-level function holding the read, when they are all known."""
        name = read.function
        if not name or "." in name:
            return "not followed", []
        mentioned = self.tree.names.get(name)
        if mentioned is None or any(rel not in self.tree.files for rel in mentioned):
            return "incomplete", []
        sites = []
        for site, site_facts in self.calls.get(name, []):
            if not _same_function(site.callee, facts.module, name):
                continue
            if site_facts.path == facts.path and site.function.split(".")[0] == name:
                continue  # recursion
            sites.append((site, site_facts))
        if not sites:
            return "none found", []
        return "followed", sites

    # -- flags ---------------------------------------------------------------------------
    def flag(self, dest: str) -> FlagVerdict:
        reads = self.by_dest.get(dest, [])
        if not reads:
            return FlagVerdict(dest, Status.UNREAD, [], [], steers=self.steers(dest))
        verdicts = [self.read(r, f, dest) for r, f in reads]
        if any(v.live is True for v in verdicts):
            status = Status.EFFECTIVE
        elif all(v.live is False for v in verdicts):
            status = Status.NO_OP
        else:
            status = Status.CONDITIONAL
        needs: set[str] = set()
        if status is Status.CONDITIONAL:
            for v in verdicts:
                if v.live is None:
                    needs |= {n for n in v.needs if n != SELF}
        return FlagVerdict(dest, status, verdicts, sorted(needs), steers=self.steers(dest))

    def steers(self, dest: str) -> list[str]:
        out: dict[str, None] = {}
        for rel, facts in self.tree.files.items():
            if self.tree.roles.get(rel) == "resolution":
                for w in facts.writes:
                    if w.target != dest and w.target in self.dests and any(
                            s.split(".")[-1] == dest for s in w.sources):
                        out[w.target] = None
        return sorted(out)


def _truth(value: Any, test: Any) -> tuple[bool | None, frozenset[str]]:
    t = truth(value)
    if t is not None:
        return t, frozenset()
    if isinstance(value, Unknown) and value.needs:
        return None, value.needs
    return None, frozenset({f"runtime:{_short(test)}"})


def _conjoin(results: list[GuardResult]) -> tuple[bool | None, frozenset[str]]:
    if any(r.truth is False for r in results):
        return False, frozenset()
    unknown = [r.needs for r in results if r.truth is None]
    if not unknown:
        return True, frozenset()
    needs = frozenset().union(*unknown)
    if needs <= {SELF}:
        return True, frozenset()  # only the setting's own value: setting it makes the read live
    return None, needs


def _same_function(callee: str, module: str, name: str) -> bool:
    """A call of `pkg.mod.name` reaches `module.name` directly or through a package re-export."""
    callee_module = callee[: -len(name) - 1]
    return callee_module == module or module.startswith(callee_module + ".")


def _mentions(test: Any, dest: str) -> bool:
    return any(dest in view(ir.Marked, n).chain for n in reads_in(test))


def _substitute(node: Any, reads: dict[str, Any], ev: GateEvaluator, subject: str | None) -> Any:
    def replace(n: Any) -> Any:
        if n[0] != "read":
            return None
        name = f"__flagscan_read_{len(reads)}"
        read = view(ir.Marked, n)
        reads[name] = ev.setting_value(read.chain, read.namespaced, subject)
        return ["n", name]

    return transform(node, replace)


def _short(test: Any) -> str:
    from flagscan.facts.render import render

    text = render(test)
    return text if len(text) <= 80 else text[:77] + "..."
