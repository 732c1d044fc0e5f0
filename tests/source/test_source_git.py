"""source: the git provider, for real, against a local file:// repository."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from source_helpers import TINY, UNREACHABLE_URL, GitServer, assert_one_line

from flagscan.source import SourceError, get_source, gitsrc, list_cached
from flagscan.source.cache import Cache
from flagscan.source.local import from_directory


def _forbid_git(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> None:
        raise AssertionError("git was used although the cache should have served")

    monkeypatch.setattr(gitsrc, "_git_module", boom)


def test_by_tag(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("v0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    assert tree.provider == "git"
    assert tree.version == "0.0.1"
    assert (tree.root / "sglang" / "srt" / "server_args.py").is_file()
    assert tree.root.parent == cache_dir / "trees"
    assert tree.served_by.startswith("git: v0.0.1")
    kept = sorted(p.relative_to(tree.root).as_posix() for p in (tree.root / "sglang").rglob("*") if p.is_file())
    assert kept == ["sglang/__init__.py", "sglang/srt/__init__.py", "sglang/srt/server_args.py", "sglang/version.py"]
    assert tree.to_json() == {"revision": "v0.0.1", "version": "0.0.1", "provider": "git", "digest": tree.digest,
                              "cached": False}


def test_by_release_number_uses_v_tag(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.2", cache_dir=cache_dir, git_url=git_server.url)
    assert tree.provider == "git" and tree.version == "0.0.2"
    assert "DEMO_CHANGE = 2" in (tree.root / "sglang/srt/server_args.py").read_text()


def test_by_commit_sha_full_and_short(git_server: GitServer, cache_dir: Path) -> None:
    full = get_source(git_server.sha1, cache_dir=cache_dir, git_url=git_server.url)
    assert full.provider == "git" and full.version == "0.0.1"
    short = get_source(git_server.sha2[:7], cache_dir=cache_dir / "other", git_url=git_server.url)
    assert short.provider == "git" and short.version == "0.0.2"


def test_second_call_is_a_cache_hit_without_git(git_server: GitServer, cache_dir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    first = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    _forbid_git(monkeypatch)
    for spec in ("0.0.1", "v0.0.1", git_server.sha1, git_server.sha1[:8]):
        hit = get_source(spec, cache_dir=cache_dir, git_url=git_server.url)
        assert hit.provider == "git" and hit.cached
        assert hit.digest == first.digest and hit.root == first.root and hit.version == "0.0.1"
        assert hit.revision == spec
        assert "cached in" in hit.served_by


def test_digest_is_stable_and_matches_the_same_tree_in_place(git_server: GitServer, tmp_path: Path) -> None:
    a = get_source("v0.0.1", cache_dir=tmp_path / "a", git_url=git_server.url)
    b = get_source(git_server.sha1, cache_dir=tmp_path / "b", git_url=git_server.url)
    assert a.digest == b.digest and a.digest.startswith("sha256:")
    assert from_directory(TINY, "tiny").digest == a.digest  # v0.0.1 is the fixture as written
    c = get_source("v0.0.2", cache_dir=tmp_path / "a", git_url=git_server.url)
    assert c.digest != a.digest


def test_unknown_tag_is_one_line_error(git_server: GitServer, cache_dir: Path) -> None:
    with pytest.raises(SourceError) as err:
        get_source("v9.9.9-nope", cache_dir=cache_dir, git_url=git_server.url)
    assert "v9.9.9-nope" in assert_one_line(err.value)


def test_unknown_commit_is_one_line_error(git_server: GitServer, cache_dir: Path) -> None:
    with pytest.raises(SourceError) as err:
        get_source("f" * 40, cache_dir=cache_dir, git_url=git_server.url)
    assert_one_line(err.value)
    with pytest.raises(SourceError):
        get_source("fffffff", cache_dir=cache_dir, git_url=git_server.url)


@pytest.mark.parametrize("url", [
    UNREACHABLE_URL,
    "https://flagscan-test.invalid/sglang.git",   # name resolution fails
    "https://127.0.0.1:9/sglang.git",             # connection refused
])
def test_unreachable_git_fails_fast(url: str, cache_dir: Path) -> None:
    start = time.monotonic()
    with pytest.raises(gitsrc.Unreachable) as err:
        gitsrc.resolve_ref(url, "v0.0.1")
    assert time.monotonic() - start < 10
    assert_one_line(err.value)


def test_tree_without_manifest_is_corrupt_offline_and_refetched_online(
        git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    (tree.root / "MANIFEST.json").unlink()
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url, offline=True)
    text = assert_one_line(err.value)
    assert "corrupt" in text and "flagscan sources fetch 0.0.1" in text
    again = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    assert again.provider == "git" and again.digest == tree.digest
    assert Cache(cache_dir).tree_status(tree.digest) == "ok"


def test_missing_file_is_damaged_and_altered_manifest_corrupt(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    cache = Cache(cache_dir)
    (tree.root / "sglang" / "version.py").unlink()
    assert cache.check_tree(tree.digest).damaged == ("sglang/version.py",)
    assert {e["status"] for e in list_cached(cache_dir) if e["digest"] == tree.digest} == {"damaged"}
    again = get_source("0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    assert again.provider == "git" and not again.cached and cache.verify_deep(tree.digest)
    manifest = tree.root / "MANIFEST.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "digest": "sha256:" + "0" * 64}))
    assert cache.tree_status(tree.digest) == "corrupt"


def test_offline_miss_says_how_to_fetch(cache_dir: Path) -> None:
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, offline=True, git_url=UNREACHABLE_URL)
    text = assert_one_line(err.value)
    assert "not in the cache" in text and "--offline" in text and "flagscan sources fetch 0.0.1" in text


def test_offline_hit(git_server: GitServer, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    get_source("v0.0.2", cache_dir=cache_dir, git_url=git_server.url)
    _forbid_git(monkeypatch)
    tree = get_source("0.0.2", cache_dir=cache_dir, git_url=git_server.url, offline=True)
    assert tree.provider == "git" and tree.cached and tree.version == "0.0.2"


_WORKER = """
import sys, threading
from flagscan.source import get_source
results = []
def run():
    results.append(get_source(sys.argv[2], cache_dir=sys.argv[1], git_url=sys.argv[3]).digest)
threads = [threading.Thread(target=run) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
print(" ".join(results))
"""


def test_concurrent_writers_leave_one_intact_tree(git_server: GitServer, cache_dir: Path) -> None:
    repo_root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(cache_dir), "v0.0.2", git_server.url],
                         cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    digests = {d for out, _ in outputs for d in out.split()}
    assert len(digests) == 1
    digest = digests.pop()
    assert [p.name for p in (cache_dir / "trees").iterdir()] == [digest.removeprefix("sha256:")]
    cache = Cache(cache_dir)
    assert cache.verify_deep(digest)
    assert not any(p.name.startswith("stage-") for p in cache.tmp.iterdir())


def test_stalled_server_is_cut_off_by_the_probe_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that accepts the connection and never answers (a black hole) must not hang."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # never accept(): the kernel completes the handshake, nobody answers
    try:
        monkeypatch.setattr(gitsrc, "PROBE_TIMEOUT_S", 1.0)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/sglang.git"
        start = time.monotonic()
        with pytest.raises(gitsrc.Unreachable) as err:
            gitsrc.resolve_ref(url, "v0.0.1")
        assert time.monotonic() - start < 5
        assert_one_line(err.value)
    finally:
        server.close()


def test_server_without_partial_clone_support(git_server: GitServer, tmp_path: Path) -> None:
    """A mirror that ignores --filter still serves a correct (just larger) fetch."""
    import git

    plain = tmp_path / "plain.git"
    git.Repo.clone_from(git_server.url, plain, bare=True)
    with git.Repo(plain).config_writer() as cw:
        cw.set_value("uploadpack", "allowFilter", "false")
    tree = get_source("v0.0.2", cache_dir=tmp_path / "cache", git_url=plain.as_uri())
    reference = get_source("v0.0.2", cache_dir=tmp_path / "cache2", git_url=git_server.url)
    assert tree.provider == "git" and tree.digest == reference.digest and tree.version == "0.0.2"


def test_list_cached_follows_tag_refs(git_server: GitServer, cache_dir: Path) -> None:
    tree = get_source("v0.0.1", cache_dir=cache_dir, git_url=git_server.url)
    entries = {e["key"].split("/", 1)[1]: e for e in list_cached(cache_dir) if e["provider"] == "git"}
    assert entries["tags/v0.0.1"]["digest"] == tree.digest
    assert entries[f"commits/{git_server.sha1}"]["status"] == "ok"
    assert entries["tags/v0.0.1"]["version"] == "0.0.1"
