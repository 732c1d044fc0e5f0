"""lint tests: a cache shared by the session for fixture trees (real releases use real_cache_dir)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def fixture_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("flagscan-cache")
