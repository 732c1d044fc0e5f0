"""Knock-on findings from a resolution: causes shown, and said when none was traced."""

from __future__ import annotations

from types import SimpleNamespace

from flagscan.evaluate.resolution.diagnose import OutcomeKind, outcomes
from flagscan.evaluate.resolution.results import Cause, Resolution, Setting
from flagscan.lint.findings import resolution_diagnostics


def _parsed():
    return SimpleNamespace(command=SimpleNamespace(path="unit.service", line=3), values={})


def test_knock_on_names_its_cause_or_says_it_was_not_traced() -> None:
    traced = Setting("chunked_prefill_size", 8192, None, "adjusted", True, None, False,
                     [Cause("sglang/srt/server_args.py:1210", "_handle_gpu_memory_settings", "gpu_mem < 160 * 1024",
                            None, True)])
    untraced = Setting("enable_tf32_matmul", False, None, "adjusted", True, None, False, [])
    resolution = Resolution({s.dest: s for s in (traced, untraced)}, [], [], True)
    assert [o.kind for o in outcomes(resolution, _parsed())] == [OutcomeKind.KNOCK_ON, OutcomeKind.KNOCK_ON]
    found = resolution_diagnostics(resolution, _parsed())
    by_dest = {d.flag: d for d in found}
    assert by_dest["chunked_prefill_size"].code == "FS101" and by_dest["chunked_prefill_size"].data["traced"]
    assert [e.location for e in by_dest["chunked_prefill_size"].evidence] == ["sglang/srt/server_args.py:1210"]
    untraced_d = by_dest["enable_tf32_matmul"]
    assert untraced_d.code == "FS101" and not untraced_d.data["traced"] and not untraced_d.evidence
    assert not untraced_d.message.rstrip().endswith("because")  # no dangling, empty cause
