"""shared test helpers: fixture paths and the cache for real SGLang releases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
TREES = FIXTURES / "trees"


@pytest.fixture(scope="session")
def real_cache_dir() -> Path:
    """Where `real` tests keep fetched SGLang releases between runs."""
    path = Path(os.environ.get("FLAGSCAN_TEST_CACHE", Path.home() / ".cache" / "flagscan-test"))
    path.mkdir(parents=True, exist_ok=True)
    return path
