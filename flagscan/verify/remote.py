"""verify: a running server's resolved arguments (`/server_info`, `/get_server_info`, `/model_info`)."""

from __future__ import annotations

import json
import shlex
import socket
import urllib.error
import urllib.request
from typing import Any

from flagscan.ruledata import load
from flagscan.verify.observed import Observed, VerifyError

# Newest first: /server_info (0.5.10+), /get_server_info (every release up to now; the only
# one up to 0.5.5). The same for /model_info and /get_model_info.
SERVER_INFO = ("/server_info", "/get_server_info")
MODEL_INFO = ("/model_info", "/get_model_info")


def fetch_json(url: str, *, timeout: float, api_key: str | None = None) -> Any:
    """GET a JSON document; VerifyError with one line for every way that can fail."""
    request = urllib.request.Request(url, headers={"Accept": "application/json",
                                                   "User-Agent": "flagscan-verify"})
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(64 << 20)
    except urllib.error.HTTPError as exc:
        raise _HttpStatus(url, exc.code, exc.reason) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            raise VerifyError(f"{url}: no answer within {timeout:g}s") from None
        if isinstance(reason, ConnectionRefusedError):
            raise VerifyError(f"{url}: connection refused (is the server up, and on this port?)") from None
        raise VerifyError(f"{url}: {getattr(reason, 'strerror', None) or reason}") from None
    except TimeoutError:
        raise VerifyError(f"{url}: no answer within {timeout:g}s") from None
    except (OSError, ValueError) as exc:  # connection reset, bad URL ...
        raise VerifyError(f"{url}: {exc}") from None
    try:
        return json.loads(body)
    except ValueError:
        snippet = body[:60].decode("utf-8", "replace").replace("\n", " ")
        raise VerifyError(f"{url}: the answer is not JSON ({snippet!r}...)") from None


class _HttpStatus(VerifyError):
    def __init__(self, url: str, code: int, reason: Any) -> None:
        hint = " (the server wants --api-key)" if code in (401, 403) else ""
        super().__init__(f"{url}: HTTP {code} {reason}{hint}")
        self.code = code


def _base(url: str) -> str:
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    for suffix in SERVER_INFO:
        if url.rstrip("/").endswith(suffix):
            return url.rstrip("/")[: -len(suffix)]
    return url.rstrip("/")


def _first(base: str, paths: tuple[str, ...], timeout: float, api_key: str | None) -> tuple[str, Any]:
    """The first path that exists; a 404/405 moves to the next, anything else stops."""
    last: VerifyError | None = None
    for path in paths:
        try:
            return base + path, fetch_json(base + path, timeout=timeout, api_key=api_key)
        except _HttpStatus as exc:
            if exc.code not in (404, 405):
                raise
            last = exc
    assert last is not None
    raise VerifyError(f"{base}: neither {' nor '.join(paths)} exists ({last})")


def observe_url(url: str, *, timeout: float = 10.0, api_key: str | None = None) -> Observed:
    base = _base(url)
    where, payload = _first(base, SERVER_INFO, timeout, api_key)
    observed = from_payload(payload, where)
    try:
        _, info = _first(base, MODEL_INFO, timeout, api_key)
    except VerifyError as exc:
        return _with(observed, notes=observed.notes + (f"no model info: {exc}",))
    arch = info.get("architectures") if isinstance(info, dict) else None
    if isinstance(arch, list) and all(isinstance(a, str) for a in arch):
        observed = _with(observed, architectures=tuple(arch))
    return observed


def _with(observed: Observed, **changes: Any) -> Observed:
    from dataclasses import replace

    return replace(observed, **changes)


def from_payload(payload: Any, where: str) -> Observed:
    """Any of the shapes SGLang serves its resolved arguments in.

    * HTTP, every release: the resolved fields at the top level, merged with
      `scheduler_info`, plus `internal_states` (one dict per DP rank) and `version`;
      0.5.20+ adds `launch_command`.
    * gRPC (`GetServerInfoResponse` as JSON, 0.5.5's in-tree server and the gateways that
      relay it): `{"server_args": {...}, "scheduler_info": {...}, "sglang_version"}`, or the
      same in protobuf's lowerCamelCase JSON names. Protobuf Structs carry every number as
      a double, so integers come back as 1.0 (compared numerically).
    """
    if not isinstance(payload, dict):
        raise VerifyError(f"{where}: expected a JSON object, got {type(payload).__name__}")
    nested = payload.get("server_args", payload.get("serverArgs"))
    notes: list[str] = []
    if isinstance(nested, dict):
        values = dict(nested)
        version = payload.get("sglang_version", payload.get("sglangVersion"))
        ranks: list[Any] = []
        notes.append("gRPC-style payload (server_args nested; numbers are protobuf doubles)")
    else:
        values = {k: v for k, v in payload.items() if k != "internal_states"}
        version = payload.get("version")
        ranks = payload.get("internal_states") or []
    if not isinstance(ranks, list) or not all(isinstance(r, dict) for r in ranks):
        notes.append("internal_states is not a list of objects; ignored")
        ranks = []
    launch = payload.get("launch_command") if isinstance(payload.get("launch_command"), str) else None
    argv = _launch_argv(launch)
    model_path = load("record")["settings"]["model"]
    if not values or model_path not in values:
        raise VerifyError(f"{where}: this does not look like SGLang's server info (no {model_path})")
    return Observed(source=where, values=values, ranks=tuple(ranks),
                    version=str(version) if version else None, launch_argv=argv, notes=tuple(notes))


def _launch_argv(launch: str | None) -> tuple[str, ...] | None:
    """0.5.20+: `launch_command` is `" ".join(argv)` of the flags (see ServerArgs.launch_command)."""
    if not launch:
        return None
    try:
        words = shlex.split(launch)
    except ValueError:
        words = launch.split()
    return tuple(words)
