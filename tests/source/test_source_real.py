"""source: real SGLang releases through the PyPI provider, cached between runs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from source_helpers import UNREACHABLE_URL

from flagscan.source import get_source


@pytest.mark.real
@pytest.mark.parametrize("release", ["0.5.10"])
def test_release_from_pypi(release: str) -> None:
    cache = Path(os.environ.get("FLAGSCAN_TEST_CACHE", "~/.cache/flagscan-test")).expanduser()
    # An unreachable git URL makes PyPI the provider, as on a machine without GitHub.
    start = time.monotonic()
    tree = get_source(release, cache_dir=cache, git_url=UNREACHABLE_URL)
    first = time.monotonic() - start
    start = time.monotonic()
    warm = get_source(release, cache_dir=cache, git_url=UNREACHABLE_URL)
    second = time.monotonic() - start
    print(f"\nsglang {release}: first {first:.2f}s via {tree.provider}, warm {second * 1000:.1f}ms")
    assert tree.version == release
    assert tree.provider == warm.provider == "pypi" and warm.cached
    assert (tree.root / "sglang" / "srt" / "server_args.py").is_file()
    assert warm.digest == tree.digest
    assert second < 1.0
