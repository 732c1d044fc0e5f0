"""shared test helpers: fixture paths and the cache for real SGLang releases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
TREES = FIXTURES / "trees"


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "gives_up: makes flagscan give up on purpose, to test what the user is told then; "
        "runs without FLAGSCAN_STRICT (strict mode raising there is tested on its own)")


def pytest_collection_modifyitems(items) -> None:
    # A rule example that expects FS402 (analysis stopped) is a give-up by definition.
    for item in items:
        example = getattr(getattr(item, "callspec", None), "params", {}).get("example")
        if example is not None and "FS402" in getattr(example, "expect", ()):
            item.add_marker(pytest.mark.gives_up)


@pytest.fixture(autouse=True)
def _give_ups_run_lenient(request, monkeypatch) -> None:
    """Under FLAGSCAN_STRICT=1 the suite must pass: the tests that give up on purpose run lenient."""
    if request.node.get_closest_marker("gives_up") is not None:
        monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)


@pytest.fixture(scope="session")
def real_cache_dir() -> Path:
    """Where `real` tests keep fetched SGLang releases between runs."""
    path = Path(os.environ.get("FLAGSCAN_TEST_CACHE", Path.home() / ".cache" / "flagscan-test"))
    path.mkdir(parents=True, exist_ok=True)
    return path
