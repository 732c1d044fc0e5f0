"""extract: flagscan's own code digests, remembered by the files' stats (extract/cache.py)."""

from __future__ import annotations

import json
import os

import pytest

from flagscan.extract import cache


@pytest.fixture
def own(tmp_path, monkeypatch):
    """flagscan's own files replaced by three temporary ones, and the memo moved beside them."""
    files = [tmp_path / name for name in ("a.py", "rules.toml", "interp.py")]
    for n, path in enumerate(files):
        path.write_text(f"x = {n}\n")
    monkeypatch.setattr(cache, "_own_files", lambda: (files[:2], files[2:]))
    monkeypatch.setattr(cache, "_MEMO", tmp_path / "__pycache__" / "digests.json")
    monkeypatch.setattr(cache.sys, "dont_write_bytecode", False)
    cache._versions.cache_clear()
    yield files
    cache._versions.cache_clear()


def _fresh() -> tuple[str, str]:
    cache._versions.cache_clear()
    return cache.code_version(), cache.engine_version()


def test_the_digests_are_the_files_contents_and_remembered(own) -> None:
    first = _fresh()
    assert first == (cache._digest(str(cache.FORMAT), own[:2]), cache._digest(first[0], own[2:]))
    assert json.loads(cache._MEMO.read_text())["engine"] == first[1]
    assert _fresh() == first


def test_the_memo_is_read_while_no_file_changed(own) -> None:
    _fresh()
    memo = json.loads(cache._MEMO.read_text())
    cache._MEMO.write_text(json.dumps({**memo, "code": "remembered", "engine": "remembered too"}))
    assert _fresh() == ("remembered", "remembered too")


def test_a_changed_file_is_hashed_again(own) -> None:
    code, engine = _fresh()
    st = os.stat(own[2])
    own[2].write_text("x = 9\n")                      # same size, new content
    os.utime(own[2], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    code2, engine2 = _fresh()
    assert code2 == code and engine2 != engine        # an evaluator file: only the engine digest moves
    own[0].write_text("y = 1\n")
    assert _fresh()[0] != code


def test_no_memo_is_written_when_python_writes_no_bytecode(own, monkeypatch) -> None:
    monkeypatch.setattr(cache.sys, "dont_write_bytecode", True)
    _fresh()
    assert not cache._MEMO.exists()


def test_the_engine_digest_covers_every_evaluate_subpackage() -> None:
    _extractor, evaluator = cache._own_files()
    names = {p.relative_to(p.parents[1]).as_posix() for p in evaluator if p.parent.name != "evaluate"}
    for part in ("interp/interpreter.py", "resolution/resolve.py", "gates/run.py", "startup/run.py"):
        assert part in names, part
