"""verify: the installed SGLang's own resolution of a command, in a subprocess (--local)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from flagscan.verify.observed import LogWarning, Observed, Rejection, VerifyError

PROBE = Path(__file__).with_name("probe.py")


def run_probe(argv: list[str], *, python: str | None = None, timeout: float = 300.0,
              stub_missing: bool = False, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run probe.py under `python` (default: this interpreter); its JSON result."""
    python = python or sys.executable
    with tempfile.TemporaryDirectory(prefix="flagscan-local-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [python, str(PROBE), "--out", str(out)] + (["--stub-missing"] if stub_missing else []) + ["--", *argv]
        full_env = {**os.environ, **(env or {})}
        full_env.setdefault("PYTHONUNBUFFERED", "1")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=os.getcwd())
        except FileNotFoundError:
            raise VerifyError(f"--local: cannot run {python!r} (no such interpreter; see --python)") from None
        except subprocess.TimeoutExpired:
            raise VerifyError(f"--local: SGLang's resolution did not finish within {timeout:g}s") from None
        if not out.is_file():
            tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-1:] or ["no output"]
            raise VerifyError(f"--local: the SGLang probe failed (exit {proc.returncode}): {tail[0][:300]}")
        try:
            result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise VerifyError(f"--local: unreadable probe result ({exc})") from None
    result["stderr_tail"] = (proc.stderr or "")[-4000:]
    return result


def parser_message(result: dict[str, Any]) -> str:
    """What SGLang's parser said when it exited: the probe's `prog: error: ...` line, else its exit code."""
    message = str((result.get("rejection") or {}).get("message") or "").strip()
    if message and not message.lstrip("-").isdigit():
        return " ".join(message.split())[:500]
    tail = [line.strip() for line in str(result.get("stderr_tail") or "").splitlines() if line.strip()]
    errors = [line for line in tail if ": error: " in line]
    if errors or tail:
        return (errors or tail)[-1][:500]
    return f"it exited with status {message or 'unknown'} and printed nothing"


def observe_local(result: dict[str, Any]) -> Observed:
    if result.get("import_error"):
        raise VerifyError(f"--local: cannot import SGLang here ({result['import_error'][:300]}); "
                          "install it, or point --python at its interpreter")
    rejection = result.get("rejection")
    if rejection and rejection.get("exception") == "SystemExit":
        raise VerifyError(f"--local: SGLang's own parser refused the command line: {parser_message(result)}")
    warnings = tuple(LogWarning(w["message"], w.get("location")) for w in result.get("warnings", []))
    notes = []
    if result.get("stubbed"):
        notes.append("stubbed (not installed): " + ", ".join(sorted({s.split('.')[0] for s in result["stubbed"]})))
    return Observed(
        source="local", values=result.get("resolved") or {}, version=result.get("sglang"),
        warnings=warnings,
        rejection=Rejection(rejection["exception"], rejection["message"], rejection.get("location")) if rejection else None,
        facts={"gpu": result.get("gpu"), "python": result.get("python"), "sglang_dir": result.get("sglang_dir"),
               "stubbed": result.get("stubbed", [])},
        notes=tuple(notes))
