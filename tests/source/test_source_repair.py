"""source: a damaged file in a cached tree is found when the tree is served, and repaired;
where a tree came from reads the same on every run (provider + cached)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from source_helpers import UNREACHABLE_URL, GitServer, assert_one_line, make_wheel, package_files
from test_source_pypi import FakePip

from flagscan.cli import main
from flagscan.source import SourceError, get_source, pypi
from flagscan.source.cache import MANIFEST, Cache

ARGS = "sglang/srt/server_args.py"
LINT = Path(__file__).resolve().parents[2] / "fixtures" / "trees" / "lint"


def _damage(tree_root: Path, relpath: str = ARGS) -> bytes:
    """Flip one byte (same size, new mtime), as a bad disk or a stray edit would; the original bytes."""
    path = tree_root / relpath
    data = path.read_bytes()
    path.write_bytes(bytes([data[0] ^ 0x20]) + data[1:])
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    return data


def test_damaged_file_offline_is_a_one_line_error_naming_it(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    _damage(tree.root)
    assert Cache(cache_dir).check_tree(tree.digest).damaged == (ARGS,)
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url, offline=True)
    assert ARGS in assert_one_line(err.value)


def test_damaged_file_is_fetched_again_online_and_said(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    original = _damage(tree.root)
    said: list[str] = []
    again = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url, progress=said.append)
    assert again.digest == tree.digest and again.provider == "git" and not again.cached
    assert (again.root / ARGS).read_bytes() == original
    assert Cache(cache_dir).verify_deep(tree.digest)
    assert any(ARGS in line for line in said)


class LintPip(FakePip):
    """`pip download` of a wheel holding the lint fixture tree (a tree whose flags extract)."""

    def __call__(self, args: list[str], timeout: float) -> tuple[int, str]:
        self.calls.append(args)
        dest = Path(args[args.index("--dest") + 1])
        make_wheel(dest / "sglang-0.0.1-py3-none-any.whl", package_files(LINT))
        return 0, "Saved sglang-0.0.1-py3-none-any.whl"


def test_sources_fetch_repairs_and_offline_exits_2(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = LintPip()
    monkeypatch.setattr(pypi, "_run_pip", fake)
    monkeypatch.setenv("FLAGSCAN_GIT_URL", UNREACHABLE_URL)
    base = ["--cache-dir", str(cache_dir), "sources", "fetch", "0.0.1", "--format", "json"]
    first = CliRunner().invoke(main, base)
    assert first.exit_code == 0, first.output
    root = Cache(cache_dir).tree_path(json.loads(first.stdout)["sglang"]["digest"])
    original = _damage(root)
    fetched = CliRunner().invoke(main, base)   # fetched again, and said why
    assert fetched.exit_code == 0 and len(fake.calls) == 2
    assert ARGS in fetched.stderr and (root / ARGS).read_bytes() == original
    _damage(root)
    offline = CliRunner().invoke(main, ["--offline", *base])
    assert offline.exit_code == 2 and offline.stdout == ""
    assert len(offline.stderr.strip().splitlines()) == 1 and ARGS in offline.stderr
    repaired = CliRunner().invoke(main, base)
    assert repaired.exit_code == 0, repaired.output
    assert (root / ARGS).read_bytes() == original and Cache(cache_dir).check_tree(json.loads(
        repaired.stdout)["sglang"]["digest"]).ok


def test_a_touched_file_is_hashed_once_then_recorded(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    path = tree.root / ARGS
    os.utime(path, ns=(0, path.stat().st_mtime_ns + 5_000_000_000))
    cache = Cache(cache_dir)
    assert cache.check_tree(tree.digest).ok
    recorded = json.loads((tree.root / MANIFEST).read_text())["entries"][ARGS]
    assert recorded[1] == path.stat().st_mtime_ns   # the next check stats it and hashes nothing


@pytest.mark.parametrize("damaged", [False, True])
def test_a_tree_cached_without_file_entries(git_server: GitServer, cache_dir: Path, damaged: bool) -> None:
    """A tree cached before per-file entries is checked against its digest once, then recorded."""
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    manifest = tree.root / MANIFEST
    old = {k: v for k, v in json.loads(manifest.read_text()).items() if k != "entries"}
    manifest.write_text(json.dumps(old))
    if damaged:
        _damage(tree.root)
    found = Cache(cache_dir).check_tree(tree.digest)
    assert found.status == ("damaged" if damaged else "ok")
    assert ("entries" in json.loads(manifest.read_text())) is not damaged


def test_pypi_provider_reads_the_same_on_every_run(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = LintPip()
    monkeypatch.setattr(pypi, "_run_pip", fake)
    monkeypatch.setenv("FLAGSCAN_GIT_URL", UNREACHABLE_URL)
    argv = ["--cache-dir", str(cache_dir), "sources", "fetch", "0.0.1", "--format", "json"]
    docs = []
    for _ in range(2):
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 0, result.output
        docs.append(json.loads(result.stdout)["sglang"])
    assert [(d["provider"], d["cached"]) for d in docs] == [("pypi", False), ("pypi", True)]
    assert len(fake.calls) == 1


def test_damaged_tree_of_a_wheel_file_is_unpacked_again(tmp_path: Path, cache_dir: Path) -> None:
    wheel = make_wheel(tmp_path / "sglang-0.0.1-py3-none-any.whl", package_files())
    tree = get_source(str(wheel), cache_dir=cache_dir)
    original = _damage(tree.root)
    again = get_source(str(wheel), cache_dir=cache_dir)
    assert again.provider == "local" and not again.cached and (again.root / ARGS).read_bytes() == original
    hit = get_source(str(wheel), cache_dir=cache_dir)
    assert hit.provider == "local" and hit.cached
