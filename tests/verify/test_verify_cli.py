"""`flagscan verify` end to end: served payloads and logs of real resolutions, against real releases."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from tests.verify.data import ROOT, cases
from tests.verify.httpfake import serve

CASES = cases()
# Releases whose recorded resolutions flagscan reproduces exactly (tests/differential):
# any gap there is a regression.
EXACT = {"0.5.5", "0.5.10"}


def _run(args, cache):
    return CliRunner().invoke(main, ["--cache-dir", str(cache), "-q", *args])


def _check_contract(result, case):
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "flagscan/verify/v1" and doc["sglang"]["version"] == case.release
    assert isinstance(doc["matched"], int) and doc["compared"] > 200
    if case.release in EXACT:
        assert doc["matched"] > 200
    for d in doc["differences"]:
        assert set(d) >= {"setting", "predicted", "actual", "kind"}
        assert d["kind"] in ("surprise", "gap", "unpredictable")
    gaps = [d for d in doc["differences"] if d["kind"] == "gap"]
    assert result.exit_code == (1 if gaps else 0)
    return doc, gaps


@pytest.mark.real
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_url(case, real_cache_dir, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    routes = {p: (200, case.json("server_info.json")) for p in case.meta["endpoints"]}
    routes["/model_info"] = (200, case.json("model_info.json"))
    with serve(routes) as base:
        result = _run(["verify", "--url", base, *case.gpu_args(), "--format", "json", "--", *case.meta["argv"]],
                      real_cache_dir)
    doc, gaps = _check_contract(result, case)
    if case.release in EXACT:
        assert gaps == []
    if "NEXTN" in case.meta["argv"] and case.release in EXACT:
        kinds = {d["setting"]: d["kind"] for d in doc["differences"]}
        assert kinds["speculative_algorithm"] == "surprise"


@pytest.mark.real
def test_url_uses_the_reported_launch_command(real_cache_dir, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    case = next(c for c in CASES if c.release == "0.5.20")
    with serve({"/server_info": (200, case.json("server_info.json"))}) as base:
        result = _run(["verify", "--url", base, *case.gpu_args(), "--format", "json"], real_cache_dir)
    _check_contract(result, case)


@pytest.mark.real
def test_grpc_payload(real_cache_dir, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    case = next(c for c in CASES if (c.path / "grpc_server_info.json").exists())
    with serve({"/server_info": (200, case.json("grpc_server_info.json"))}) as base:
        result = _run(["verify", "--url", base, *case.gpu_args(), "--format", "json", "--", *case.meta["argv"]],
                      real_cache_dir)
    _, gaps = _check_contract(result, case)
    assert gaps == []


@pytest.mark.real
@pytest.mark.parametrize("case", [c for c in CASES if c.release in EXACT], ids=lambda c: c.id)
def test_log_with_rank_prefix_from_stdin(case, real_cache_dir, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    journal = "\n".join(f"Jan 15 09:30:00 node sglang[7]: {line}" for line in case.text("serve-rank.log").splitlines())
    result = CliRunner().invoke(main, ["--cache-dir", str(real_cache_dir), "-q", "--sglang", case.release, "verify",
                                       "--log", "-", *case.gpu_args(), "--format", "json", "--",
                                       *case.meta["argv"]], input=journal)
    doc, gaps = _check_contract(result, case)
    assert gaps == []
    found = 0
    for warning in case.meta["warnings"]:
        # The log shows the message; a predicted cause carries it when the resolution engine paired the
        # logger call with the write (same handler and branch); its location is the write's.
        matches = [w for w in doc["warnings"] if (w["message"] or "")[:40] == warning["message"][:40]]
        assert all(w["log_line"] for w in matches), warning
        found += bool(matches)
    if "NEXTN" in case.meta["argv"]:
        assert found >= 1


def test_usage_errors_exit_2_before_any_analysis(tmp_path) -> None:
    cases_ = [
        (["verify", "--gpu", "h200", "--", "--model-path", "m"], "exactly one of"),
        (["verify", "--url", "http://127.0.0.1:1", "--log", "x", "--gpu", "h200"], "exactly one of"),
        (["verify", "--log", str(tmp_path / "missing.log"), "--gpu", "h200", "--", "--model-path", "m"],
         "cannot read log"),
        (["verify", "--url", "http://127.0.0.1:1", "--gpu", "h200", "--", "--model-path", "m"], "connection refused"),
    ]
    for args, needle in cases_:
        result = CliRunner().invoke(main, ["--cache-dir", str(tmp_path), "--offline", *args])
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.stderr and result.stderr.count("flagscan: error") == 1


def test_local_without_sglang_is_a_clean_error(tmp_path) -> None:
    """The probe runs in a subprocess; an interpreter without SGLang gives one line, exit 2."""
    result = CliRunner().invoke(main, ["--cache-dir", str(tmp_path), "--offline", "verify", "--local",
                                       "--python", sys.executable, "--gpu", "h200", "--", "--model-path", "m"])
    if "cannot import SGLang" not in result.stderr:
        pytest.skip("sglang is importable here")
    assert result.exit_code == 2


def test_local_help_says_it_executes_sglang() -> None:
    result = CliRunner().invoke(main, ["verify", "--help"])
    assert "EXECUTES SGLANG CODE" in result.output
