"""Classifying differences between a prediction and what SGLang resolved."""

from __future__ import annotations

from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.resolution.results import Cause, Rejection, Resolution, Setting
from flagscan.verify.compare import Kind, compare, equal
from flagscan.verify.observed import LogWarning, Observed
from flagscan.verify.observed import Rejection as SeenRejection

CAUSE = Cause("sglang/srt/server_args.py:2984", "_handle_speculative_decoding", "self.speculative_algorithm == 'NEXTN'",
              "NEXTN is EAGLE with the model's own MTP layers", True)


def _resolution(**settings: Setting) -> Resolution:
    return Resolution(dict(settings), [], [], True)


def _kinds(report) -> dict[str, str]:
    return {d.setting: d.kind.value for d in report.differences}


def test_agreement_surprise_gap_and_unpredictable() -> None:
    res = _resolution(
        tp_size=Setting("tp_size", 4, 1, "user", True, 4, True),
        speculative_algorithm=Setting("speculative_algorithm", "EAGLE", None, "adjusted", True, "NEXTN", True, [CAUSE]),
        max_running_requests=Setting("max_running_requests", None, None, "default", True),
        random_seed=Setting("random_seed", Unknown("random"), None, "adjusted", False),
        page_size=Setting("page_size", Unknown("x", set(), (1, 64)), None, "adjusted", False, options=[1, 64]),
    )
    seen = Observed("test", {"tp_size": 4, "speculative_algorithm": "EAGLE", "max_running_requests": 48,
                             "random_seed": 1234, "page_size": 64, "status": "ready", "not_a_flag": 1})
    report = compare(res, seen)
    assert _kinds(report) == {"speculative_algorithm": "surprise", "max_running_requests": "gap",
                              "random_seed": "unpredictable"}
    assert report.matched == 2 and report.compared == 5  # tp_size, page_size (one of its options)
    assert report.not_predicted == ("not_a_flag",)
    surprise = next(d for d in report.differences if d.kind is Kind.SURPRISE)
    assert surprise.to_json()["user_value"] == "NEXTN" and surprise.locations == (CAUSE.location,)


def test_a_given_seed_is_predictable() -> None:
    res = _resolution(random_seed=Setting("random_seed", 7, None, "user", True, 7, True))
    assert _kinds(compare(res, Observed("t", {"random_seed": 8}))) == {"random_seed": "gap"}


def test_json_equality_rules() -> None:
    assert equal(8, 8.0) and equal([1, 2], (1, 2)) and equal(0.853, 0.8530000000000001)
    assert not equal(True, 1) and not equal(None, 0) and not equal("1", 1)


def test_ranks_rejections_and_redaction() -> None:
    res = _resolution(attention_backend=Setting("attention_backend", "fa3", None, "adjusted", True),
                      watermark_key=Setting("watermark_key", None, None, "default", True))
    seen = Observed("t", {"attention_backend": "fa3", "watermark_key": "<redacted>"},
                    ranks=({"attention_backend": "flashinfer", "memory_usage": {}}, {"attention_backend": "fa3"}))
    report = compare(res, seen)
    assert _kinds(report) == {"internal_states[0].attention_backend": "gap", "watermark_key": "unpredictable"}
    refused = Observed("local", {}, rejection=SeenRejection("ValueError", "no", "sglang/srt/server_args.py:1"))
    assert _kinds(compare(res, refused)) == {"<rejection>": "gap"}
    predicted = Resolution({}, [Rejection("sglang/srt/server_args.py:1", "h", "", "no", True, "ValueError")], [], False)
    assert _kinds(compare(predicted, refused)) == {}


def test_warnings_are_matched_to_predicted_causes() -> None:
    cause = Cause("sglang/srt/server_args.py:2994", "_handle_speculative_decoding", "",
                  "Max running requests is reset to {self.max_running_requests} for speculative decoding.", True)
    res = _resolution(max_running_requests=Setting("max_running_requests", 48, None, "adjusted", True, None, False,
                                                   [cause]))
    seen = Observed("log", {"max_running_requests": 48},
                    warnings=(LogWarning("unrelated", None, 1),
                              LogWarning("Max running requests is reset to 48 for speculative decoding.", None, 2)))
    report = compare(res, seen)
    assert [w.line for w in report.warnings] == [2]
