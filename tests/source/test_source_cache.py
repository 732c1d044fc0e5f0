"""source: cache location, atomic commits, listing and clearing."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import TINY

from flagscan.source import clear_cache, default_cache_dir, get_source, list_cached
from flagscan.source.cache import Cache


def test_default_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FLAGSCAN_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "flagscan"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "flagscan"
    monkeypatch.setenv("FLAGSCAN_CACHE_DIR", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"


def _fill(cache: Cache, marker: bytes = b"") -> tuple[str, Path]:
    builder = cache.builder()
    for path in sorted((TINY / "python" / "sglang").rglob("*.py")):
        builder.add(path.relative_to(TINY / "python").as_posix(), path.read_bytes() + marker)
    return cache.commit(builder, version="0.0.1"), builder.stage


def test_second_writer_discards_its_copy(cache_dir: Path) -> None:
    cache = Cache(cache_dir)
    first, _ = _fill(cache)
    second, stage = _fill(cache)
    assert first == second and not stage.exists()
    assert cache.tree_status(first) == "ok" and cache.verify_deep(first)
    assert len(list((cache_dir / "trees").iterdir())) == 1


def test_writer_replaces_a_corrupt_tree(cache_dir: Path) -> None:
    cache = Cache(cache_dir)
    digest, _ = _fill(cache)
    (cache.tree_path(digest) / "MANIFEST.json").write_text("{not json")
    assert cache.tree_status(digest) == "corrupt"
    again, _ = _fill(cache)
    assert again == digest and cache.tree_status(digest) == "ok"


def test_list_and_clear(tmp_path: Path, cache_dir: Path) -> None:
    from source_helpers import make_wheel, package_files

    wheel = make_wheel(tmp_path / "sglang-0.0.1-py3-none-any.whl", package_files())
    tree = get_source(str(wheel), cache_dir=cache_dir)
    entries = list_cached(cache_dir)
    assert len(entries) == 1
    assert entries[0]["provider"] == "file" and entries[0]["digest"] == tree.digest
    assert entries[0]["status"] == "ok" and entries[0]["version"] == "0.0.1"
    assert clear_cache(cache_dir) == 1
    assert list_cached(cache_dir) == [] and not tree.root.exists()
    assert clear_cache(cache_dir) == 0


def test_unwritable_cache_is_a_one_line_error(tmp_path: Path) -> None:
    import os

    from source_helpers import assert_one_line, make_wheel, package_files

    from flagscan.source import SourceError

    if os.geteuid() == 0:
        blocker = tmp_path / "file-not-dir"   # root ignores permissions: block with a file
        blocker.write_text("")
        cache_dir = blocker / "cache"
    else:
        (tmp_path / "ro").mkdir(mode=0o500)
        cache_dir = tmp_path / "ro" / "cache"
    wheel = make_wheel(tmp_path / "sglang-0.0.1-py3-none-any.whl", package_files())
    with pytest.raises(SourceError) as err:
        get_source(str(wheel), cache_dir=cache_dir)
    assert_one_line(err.value)
