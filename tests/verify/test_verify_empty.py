"""verify: a verification that compared nothing is an error (exit 2), never a pass; --local
shows what SGLang's own parser said when it refused the command."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.verify.local import observe_local, run_probe
from flagscan.verify.observed import VerifyError
from tests.verify.data import ROOT
from tests.verify.test_local import OLD_ERA

LINT = ROOT / "fixtures" / "trees" / "lint"
# What the lint fixture's resolution gives for `--model-path m` on an H200 (as SGLang would report it).
RESOLVED = {"model_path": "m", "tp_size": 1, "attention_backend": None, "speculative_algorithm": None,
            "max_running_requests": None, "disable_piecewise_cuda_graph": False, "enable_dp_attention": False,
            "schedule_policy": "fcfs", "chunked_prefill_size": 8192, "incremental_output": False,
            "enable_allreduce_fusion": False, "mem_fraction_static": 0.9}


def _probe_result(resolved: dict[str, Any] | None, rejection: dict[str, Any] | None = None) -> dict[str, Any]:
    """A probe.py result as the installed lint fixture would give it."""
    return {"argv": ["--model-path", "m"], "resolved": resolved, "rejection": rejection, "sglang": "0.0.1",
            "sglang_dir": str(LINT), "warnings": [], "gpu": {"cuda_available": False}, "python": "3.11",
            "stubbed": [], "stderr_tail": ""}


def _verify_local(monkeypatch, tmp_path: Path, result: dict[str, Any]):
    monkeypatch.setattr("flagscan.verify.local.run_probe", lambda *a, **k: result)
    return CliRunner().invoke(main, ["--cache-dir", str(tmp_path / "cache"), "-q", "verify", "--local",
                                     "--gpu", "h200", "--format", "json", "--", "--model-path", "m"])


def test_a_comparison_passes(monkeypatch, tmp_path) -> None:
    result = _verify_local(monkeypatch, tmp_path, _probe_result(RESOLVED))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["compared"] == doc["matched"] == len(RESOLVED) and doc["differences"] == []


def test_an_empty_prediction_is_an_error(monkeypatch, tmp_path) -> None:
    from flagscan.evaluate.resolution.results import Resolution

    monkeypatch.setattr("flagscan.evaluate.predict", lambda *a, **k: Resolution({}, [], [], False))
    result = _verify_local(monkeypatch, tmp_path, _probe_result(RESOLVED))
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "predicted no settings" in result.stderr


@pytest.mark.parametrize("resolved", [{}, {"not_a_flag_here": 1, "nor_this": "x"}], ids=["nothing", "disjoint"])
def test_an_observation_sharing_no_setting_is_an_error(monkeypatch, tmp_path, resolved) -> None:
    result = _verify_local(monkeypatch, tmp_path, _probe_result(resolved))
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "nothing was compared" in result.stderr


def test_a_rejection_alone_is_compared(monkeypatch, tmp_path) -> None:
    rejection = {"exception": "ValueError", "message": "no", "location": "sglang/srt/server_args.py:1"}
    result = _verify_local(monkeypatch, tmp_path, _probe_result(None, rejection))
    assert result.exit_code == 1, result.output
    assert [d["setting"] for d in json.loads(result.stdout)["differences"]] == ["<rejection>"]


def _package(tmp_path: Path) -> Path:
    srt = tmp_path / "site" / "sglang" / "srt"
    srt.mkdir(parents=True)
    (srt.parent / "__init__.py").write_text('__version__ = "0.0.1"\n')
    (srt / "__init__.py").write_text("")
    (srt / "server_args.py").write_text(textwrap.dedent(OLD_ERA))
    return srt.parent.parent


def test_the_parsers_refusal_is_shown(tmp_path) -> None:
    root = _package(tmp_path)
    result = run_probe(["--model-path", "m", "--no-such-flag"], python=sys.executable,
                       env={"PYTHONPATH": str(root)}, timeout=60)
    # argparse's own line, as SGLang's parser (prog "sglang serve" in the fixture) printed it
    assert result["rejection"]["message"] == "sglang serve: error: unrecognized arguments: --no-such-flag"
    with pytest.raises(VerifyError) as err:
        observe_local(result)
    assert str(err.value).endswith(result["rejection"]["message"]) and "\n" not in str(err.value)


def test_the_parsers_refusal_through_the_cli(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(_package(tmp_path)))
    result = CliRunner().invoke(main, ["--cache-dir", str(tmp_path / "cache"), "-q", "verify", "--local",
                                       "--gpu", "h200", "--", "--model-path", "m", "--no-such-flag"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "unrecognized arguments: --no-such-flag" in result.stderr


def test_an_old_probe_result_falls_back_to_its_stderr() -> None:
    result = _probe_result(None, {"exception": "SystemExit", "message": "2", "location": None})
    result["stderr_tail"] = "usage: sglang serve [-h]\nsglang serve: error: the following arguments are required: --x\n"
    with pytest.raises(VerifyError) as err:
        observe_local(result)
    assert str(err.value).endswith("sglang serve: error: the following arguments are required: --x")
