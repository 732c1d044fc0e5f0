"""With no model config, findings that only the model would decide are said once (FS302, FS401,
FS304), and many places where analysis stopped are one FS402 finding."""

from __future__ import annotations

from types import SimpleNamespace

from flagscan.diagnostics import Diagnostic, Evidence, FileLocation, Severity
from flagscan.lint.rules import _model, fs302_possible_rejection, fs401_needs_information, fs402_analysis_stopped

HERE = FileLocation("u.service", 3, 1)


def _ctx(found, model=None):
    return SimpleNamespace(knock_on=found, scenario=SimpleNamespace(model=model), command_location=HERE,
                           parsed=SimpleNamespace(values={}))


def _d(code, message, **data):
    return Diagnostic(code, Severity.WARNING, message, None, HERE, (Evidence(f"sglang/srt/x.py:{len(message)}", ""),),
                      data)


def test_possible_rejections_on_the_model_are_one_finding_when_it_is_missing():
    found = [_d("FS302", "a", depends=["model"]), _d("FS302", "bb", depends=["runtime:os.path.exists"]),
             _d("FS302", "ccc", depends=[]), _d("FS302", "dddd", depends=["env:SGLANG_X"])]
    out = fs302_possible_rejection.check(_ctx(found))
    kept = [d for d in out if "count" not in d.data]
    (summary,) = [d for d in out if "count" in d.data]
    assert [d.message for d in kept] == ["dddd"] and summary.data["count"] == 3
    assert len(summary.evidence) == 3 and summary.code == "FS302"


def test_with_a_model_config_every_finding_stays_on_its_own():
    found = [_d("FS302", "a", depends=["model"]), _d("FS302", "bb", depends=[])]
    model = SimpleNamespace(complete=True)
    assert [d.message for d in fs302_possible_rejection.check(_ctx(found, model))] == ["a", "bb"]


def test_settings_that_rest_on_host_facts_are_not_put_on_the_model():
    found = [_d("FS401", "cpu", needs=["runtime:os.cpu_count"]), _d("FS401", "m", needs=["model"])]
    out = fs401_needs_information.check(_ctx(found))
    assert [d.message for d in out if "count" not in d.data] == ["cpu"]
    assert [d.data["count"] for d in out if "count" in d.data] == [1]


def test_many_stopping_places_are_one_finding_few_are_each_said():
    few = [_d("FS402", "x" * i) for i in range(1, 4)]
    assert fs402_analysis_stopped.check(_ctx(few)) == few
    many = few + [_d("FS402", "yyyy")]
    (one,) = fs402_analysis_stopped.check(_ctx(many))
    assert one.data["count"] == 4 and len(one.evidence) == 4 and one.data["needs"] == []


def test_model_missing_follows_the_scenario():
    assert _model.model_missing(_ctx([]))
    assert _model.model_missing(_ctx([], SimpleNamespace(complete=False)))
    assert not _model.model_missing(_ctx([], SimpleNamespace(complete=True)))
