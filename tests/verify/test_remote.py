"""--url: SGLang's server info in every shape it is served, and every way a request fails."""

from __future__ import annotations

import socket

import pytest
from packaging.version import Version

from flagscan.verify.observed import VerifyError
from flagscan.verify.remote import from_payload, observe_url
from tests.verify.data import cases
from tests.verify.httpfake import serve

CASES = cases()


def _routes(case, *, info_at=None):
    info = case.json("server_info.json")
    routes = {path: (200, info) for path in (info_at or case.meta["endpoints"])}
    routes["/model_info"] = (200, case.json("model_info.json"))
    return routes


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_http_payloads(case) -> None:
    with serve(_routes(case)) as base:
        observed = observe_url(base, timeout=5)
    served = case.json("server_info.json")
    assert observed.version == case.release
    assert observed.values["model_path"] == served["model_path"]
    assert observed.architectures == tuple(case.json("model_info.json")["architectures"])
    assert len(observed.ranks) == 1 and observed.ranks[0]["tp_size"] == served["tp_size"]
    if Version(case.release) >= Version("0.5.20"):
        assert observed.launch_argv == tuple(case.meta["argv"])
    else:
        assert observed.launch_argv is None


def test_old_endpoint_only_server_is_found() -> None:
    case = next(c for c in CASES if c.meta["endpoints"] == ["/get_server_info"])
    with serve(_routes(case)) as base:
        observed = observe_url(base + "/", timeout=5)
        assert serve.seen[:2] == ["/server_info", "/get_server_info"]
    assert observed.source.endswith("/get_server_info")


def test_grpc_style_nesting() -> None:
    case = next(c for c in CASES if (c.path / "grpc_server_info.json").exists())
    payload = case.json("grpc_server_info.json")
    observed = from_payload(payload, "grpc")
    assert observed.version == case.release
    assert observed.values["tp_size"] == 1.0  # a protobuf double
    assert "status" not in observed.values  # scheduler_info stays apart
    with serve({"/server_info": (200, payload)}) as base:
        assert observe_url(base, timeout=5).values == observed.values


def test_api_key_is_sent() -> None:
    case = CASES[0]
    with serve({"/server_info": (401, {"detail": "Unauthorized"})}) as base:
        with pytest.raises(VerifyError, match="--api-key"):
            observe_url(base, timeout=5)
    with serve(_routes(case)) as base:
        assert observe_url(base, timeout=5, api_key="k").values


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("setup, needle", [
    ("refused", "connection refused"),
    ("timeout", "no answer within"),
    ("html", "not JSON"),
    ("500", "HTTP 500"),
    ("404", "neither /server_info nor /get_server_info"),
    ("list", "expected a JSON object"),
    ("other-json", "does not look like SGLang"),
])
def test_failures_are_one_line(setup, needle) -> None:
    routes = {
        "html": {"/server_info": (200, b"<html>hello</html>")},
        "500": {"/server_info": (500, {"detail": "boom"})},
        "404": {},
        "list": {"/server_info": (200, [1, 2])},
        "other-json": {"/server_info": (200, {"hello": "world"})},
        "timeout": {"/server_info": (200, {})},
    }
    if setup == "refused":
        with pytest.raises(VerifyError) as info:
            observe_url(f"127.0.0.1:{_closed_port()}", timeout=2)
    else:
        with serve(routes[setup], delay=1.0 if setup == "timeout" else 0.0) as base:
            with pytest.raises(VerifyError) as info:
                observe_url(base, timeout=0.2 if setup == "timeout" else 5)
    assert needle in str(info.value) and "\n" not in str(info.value)
