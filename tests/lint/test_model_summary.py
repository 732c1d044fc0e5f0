"""With no model config, findings that only the model would decide are said once (FS302, FS401,
FS304), and many places where analysis stopped are one FS402 finding."""

from __future__ import annotations

from types import SimpleNamespace

from flagscan.diagnostics import FileLocation
from flagscan.evaluate.interp.giveup import Stop
from flagscan.evaluate.resolution.diagnose import Outcome, OutcomeKind
from flagscan.evaluate.resolution.results import Rejection, Setting
from flagscan.lint.rules import _model, fs302_possible_rejection, fs401_needs_information, fs402_analysis_stopped

HERE = FileLocation("u.service", 3, 1)


def _ctx(found, model=None):
    def outcomes(kinds):
        return [o for o in found if o.kind in set(kinds)]

    return SimpleNamespace(outcomes=outcomes, scenario=SimpleNamespace(model=model), command_location=HERE,
                           parsed=SimpleNamespace(values={}))


def _rejection(message, depends):
    r = Rejection(f"sglang/srt/x.py:{len(message)}", "h", "", message, False, "ValueError", [], depends)
    return Outcome(OutcomeKind.MAY_REJECT, HERE, r)


def _change(dest, needs):
    return Outcome(OutcomeKind.MAY_CHANGE, HERE, Setting(dest, None, None, "adjusted", False, needs=needs))


def _stop(n):
    return Outcome(OutcomeKind.STOPPED, HERE, Stop(f"sglang/srt/x.py:{n}", "a loop", f"v{n}"))


def test_possible_rejections_on_the_model_are_one_finding_when_it_is_missing():
    found = [_rejection("a", ["model"]), _rejection("bb", ["runtime:os.path.exists"]), _rejection("ccc", []),
             _rejection("dddd", ["env:SGLANG_X"])]
    out = fs302_possible_rejection.check(_ctx(found))
    kept = [d for d in out if "count" not in d.data]
    (summary,) = [d for d in out if "count" in d.data]
    assert [d.data["depends"] for d in kept] == [["env:SGLANG_X"]] and summary.data["count"] == 3
    assert len(summary.evidence) == 3 and summary.code == "FS302"


def test_with_a_model_config_every_finding_stays_on_its_own():
    found = [_rejection("a", ["model"]), _rejection("bb", [])]
    model = SimpleNamespace(complete=True)
    assert [d.evidence[0].location for d in fs302_possible_rejection.check(_ctx(found, model))] == [
        "sglang/srt/x.py:1", "sglang/srt/x.py:2"]


def test_settings_that_rest_on_host_facts_are_not_put_on_the_model():
    found = [_change("cpu", ["runtime:os.cpu_count"]), _change("m", ["model"])]
    out = fs401_needs_information.check(_ctx(found))
    assert [d.flag for d in out if "count" not in d.data] == ["cpu"]
    assert [d.data["count"] for d in out if "count" in d.data] == [1]


def test_many_stopping_places_are_one_finding_few_are_each_said():
    few = [_stop(i) for i in range(1, 4)]
    assert fs402_analysis_stopped.check(_ctx(few)) == [fs402_analysis_stopped.report(o) for o in few]
    many = few + [_stop(4)]
    (one,) = fs402_analysis_stopped.check(_ctx(many))
    assert one.data["count"] == 4 and len(one.evidence) == 4 and one.data["needs"] == []


def test_model_missing_follows_the_scenario():
    assert _model.model_missing(_ctx([]))
    assert _model.model_missing(_ctx([], SimpleNamespace(complete=False)))
    assert not _model.model_missing(_ctx([], SimpleNamespace(complete=True)))
