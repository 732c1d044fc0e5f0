"""Reading server_args and warnings from SGLang logs, with every prefix a deployment adds."""

from __future__ import annotations

import pytest

from flagscan.verify.logscan import observe_log, strip_prefixes
from flagscan.verify.observed import VerifyError
from tests.verify.data import cases

CASES = cases()


def _journal_short(text: str) -> str:
    return "\n".join(f"Jan 15 09:30:0{i % 10} gpu-node-1 sglang-qwen[4242]: {line}"
                     for i, line in enumerate(text.splitlines()))


def _journal_iso(text: str) -> str:
    return "\n".join(f"2026-01-15T09:30:00+0000 gpu-node-1 python3[4242]: {line}" for line in text.splitlines())


def _compose(text: str) -> str:
    return "\n".join(f"sglang-1  | {line}" for line in text.splitlines())


@pytest.mark.parametrize("wrap", [lambda t: t, _journal_short, _journal_iso, _compose],
                         ids=["plain", "journal-short", "journal-iso", "compose"])
@pytest.mark.parametrize("log", ["serve.log", "serve-rank.log"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_values_and_warnings_from_every_log_format(case, log, wrap) -> None:
    observed = observe_log(wrap(case.text(log)), log)
    served = case.json("server_info.json")
    shared = [k for k in observed.values if k in served]
    assert len(shared) > 200
    assert {k: observed.values[k] for k in shared} == {k: served[k] for k in shared}
    printed = " ".join(w.message for w in observed.warnings)
    for warning in case.meta["warnings"]:
        assert warning["message"].strip()[:60] in printed
    if log == "serve-rank.log":
        assert any("DP0 TP0" in n for n in observed.notes)


def test_last_start_wins_and_warnings_belong_to_it() -> None:
    case = next(c for c in CASES if c.release == "0.5.10")
    first = case.text("serve.log")
    other = next(c for c in CASES if c.release == "0.5.5").text("serve.log")
    observed = observe_log(first + "some other output\n" + other, "two.log")
    assert observed.values["model_path"].endswith("llama-3-8b")
    assert any("2 server starts" in n for n in observed.notes)
    assert all(w.line > len(first.splitlines()) for w in observed.warnings)


def test_locations_are_picked_up_when_the_format_prints_them() -> None:
    log = ("WARNING 01-15 09:30:00 /usr/lib/python3/site-packages/sglang/srt/server_args.py:2994] "
           "Max running requests is reset to 48\n[2026-01-15 09:30:00] server_args={'model_path': 'm'}\n")
    observed = observe_log(log, "x")
    assert observed.warnings[0].location == "sglang/srt/server_args.py:2994"


@pytest.mark.parametrize("text, needle", [
    ("nothing here\n", "no `server_args="),
    ("[2026-01-15 09:30:00] server_args=ServerArgs(model_path='m', tp_size=", "cut short"),
    ("[2026-01-15 09:30:00] server_args=ServerArgs(model_path='m' tp_size=1)\n", "cannot read"),
])
def test_unreadable_logs_are_one_line_errors(text, needle) -> None:
    with pytest.raises(VerifyError) as info:
        observe_log(text, "bad.log")
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_prefix_stripping() -> None:
    assert strip_prefixes("[2026-01-15 09:30:00.123 DP1 PP0 TP3 EP3] hello") == ("hello", "DP1 PP0 TP3 EP3")
    assert strip_prefixes("plain") == ("plain", None)
