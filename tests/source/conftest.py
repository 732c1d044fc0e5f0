"""source: shared fixtures: a local git repository built from fixtures/trees/tiny, fake archives."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from source_helpers import TINY, GitServer

# What git needs to commit and to make an annotated tag, given here instead of read
# from the user's configuration: the fixture repository builds with an empty HOME
# and is not changed by a global config (tag.gpgSign, init.defaultBranch...).
HERMETIC_GIT = {
    "GIT_AUTHOR_NAME": "flagscan tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "flagscan tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
}


@contextmanager
def hermetic_git() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in HERMETIC_GIT.items():
            mp.setenv(name, value)
        yield


def _commit(repo, message: str) -> str:
    import git

    repo.git.add(A=True)
    actor = git.Actor("flagscan tests", "tests@example.invalid")
    return repo.index.commit(message, author=actor, committer=actor).hexsha


@pytest.fixture(scope="session")
def git_server(tmp_path_factory: pytest.TempPathFactory) -> GitServer:
    import git

    path = tmp_path_factory.mktemp("server") / "sglang"
    shutil.copytree(TINY, path)
    with hermetic_git():
        return _build_server(git.Repo.init(path), path)


def _build_server(repo, path: Path) -> GitServer:
    # Lets the provider's blobless, sparse fetch run as it would against GitHub.
    with repo.config_writer() as cw:
        cw.set_value("uploadpack", "allowFilter", "true")
        cw.set_value("uploadpack", "allowAnySHA1InWant", "true")
    sha1 = _commit(repo, "first")
    repo.create_tag("v0.0.1", ref=sha1, message="release 0.0.1")
    (path / "python/sglang/version.py").write_text('__version__ = "0.0.2"\n')
    args = path / "python/sglang/srt/server_args.py"
    args.write_text(args.read_text() + "\n\nDEMO_CHANGE = 2\n")
    (path / "python/pyproject.toml").write_text('[project]\nname = "sglang"\nversion = "0.0.2"\n')
    sha2 = _commit(repo, "second")
    repo.create_tag("v0.0.2", ref=sha2)
    return GitServer(path, path.as_uri(), sha1, sha2)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"
