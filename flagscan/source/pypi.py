"""source: the PyPI provider: `pip download --no-deps sglang==X` (wheel or sdist)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from flagscan.source.model import NotFound, SourceError, Unreachable, one_line

PIP_TIMEOUT_S = 900
# Newer SGLang wheels are platform-specific (cp311 manylinux_2_34); when pip finds none
# for this interpreter/platform, ask for that one: only the Python files are used anyway.
PLATFORM_ARGS = ["--platform", "manylinux_2_34_x86_64", "--python-version", "3.11", "--only-binary=:all:"]
_NETWORK_MARKERS = (
    "NewConnectionError", "Max retries exceeded", "Temporary failure in name resolution",
    "Name or service not known", "Failed to establish a new connection", "ProxyError",
    "ConnectTimeout", "ReadTimeout", "Network is unreachable", "SSLError",
    "Connection refused", "No route to host",
)
_VERSIONS_RE = re.compile(r"\(from versions: ([^)]*)\)")


def _run_pip(args: list[str], timeout: float) -> tuple[int, str]:
    """Run pip with this interpreter; returns (exit code, stdout+stderr)."""
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", *args], capture_output=True, text=True,
            timeout=timeout, env=env, check=False,
        )
    except subprocess.TimeoutExpired:
        return 124, f"pip download did not finish in {timeout:.0f} s"
    return proc.returncode, proc.stdout + proc.stderr


def _last_error(output: str) -> str:
    errors = [ln for ln in output.splitlines() if ln.startswith("ERROR:")]
    line = errors[-1] if errors else (output.strip().splitlines() or ["pip failed"])[-1]
    return one_line(line.removeprefix("ERROR:").strip())[:300]


def _listed_versions(output: str) -> list[str] | None:
    m = _VERSIONS_RE.search(output)
    if not m:
        return None
    text = m.group(1).strip()
    return [] if text == "none" else [v.strip() for v in text.split(",")]


def _same_version(a: str, b: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def _classify(version: str, rc: int, output: str) -> SourceError:
    if rc == 124 or any(marker in output for marker in _NETWORK_MARKERS):
        return Unreachable(f"PyPI unreachable: {_last_error(output)}")
    listed = _listed_versions(output)
    # pip lists only the versions it could install here, so "not listed" is final only
    # after the platform-pinned retry.
    if listed is not None and not any(_same_version(v, version) for v in listed):
        return NotFound(f"no sglang=={version} on PyPI")
    return SourceError(f"pip could not download sglang=={version}: {_last_error(output)}")


def download(version: str, dest: Path, *, progress: Callable[[str], None]) -> Path:
    """Download sglang==version into dest; returns the wheel or sdist path."""
    base = ["download", "--no-deps", "--dest", str(dest), f"sglang=={version}",
            "--progress-bar", "off", "--retries", "1", "--timeout", "15"]
    progress(f"pypi: downloading sglang=={version}")
    rc, out = _run_pip(base, PIP_TIMEOUT_S)
    if rc != 0:
        first = _classify(version, rc, out)
        if isinstance(first, Unreachable):
            raise first
        progress(f"pypi: no sglang=={version} distribution for this platform; trying manylinux x86_64 cp311")
        rc, out = _run_pip(base + PLATFORM_ARGS, PIP_TIMEOUT_S)
        if rc != 0:
            raise _classify(version, rc, out)
    found = sorted(p for p in dest.iterdir() if p.name.lower().startswith("sglang-") and p.is_file())
    if not found:
        raise SourceError(f"pip reported success but left no sglang distribution in {dest}")
    return found[0]
