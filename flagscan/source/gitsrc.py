"""source: the git provider: a shallow, blobless, sparse fetch of one tag or commit."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.ruledata import load
from flagscan.source.cache import TreeBuilder
from flagscan.source.model import (
    NotFound,
    SourceError,
    Unreachable,
    is_wanted,
    one_line,
    version_from_pyproject,
)

# rules/sources.toml [git]: the upstream repository, and where the package sits in it
DEFAULT_GIT_URL: str = load("sources")["git"]["url"]
PACKAGE_PATH: str = load("sources")["git"]["package_path"]
# Reachability is probed with ls-remote under a short deadline so that a machine without
# network falls through to PyPI in seconds; the fetch itself may take longer but must not stall.
PROBE_TIMEOUT_S = float(os.environ.get("FLAGSCAN_GIT_PROBE_TIMEOUT", "8"))
FETCH_TIMEOUT_S = float(os.environ.get("FLAGSCAN_GIT_FETCH_TIMEOUT", "600"))
GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_HTTP_LOW_SPEED_LIMIT": "1000",   # bytes/s ...
    "GIT_HTTP_LOW_SPEED_TIME": "10",      # ... for this many seconds aborts a stalled transfer
    "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=5"),
}


@dataclass(frozen=True, slots=True)
class GitResult:
    sha: str
    ref: str | None            # the tag or branch fetched, None for a bare commit
    pyproject_version: str | None


def url_key(url: str) -> str:
    """A short stable key for a repository URL (cache refs are per URL)."""
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def _git_module() -> Any:
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        import git  # gitpython; imported late so a machine without a git binary still works
        git.refresh()
    except Exception as exc:  # ImportError, or GitPython's "bad git executable"
        raise Unreachable(f"git is not available ({one_line(str(exc))[:120]})") from None
    return git


def _reason(exc: Exception) -> str:
    """The first fatal/error line of a failed git command, without GitPython's framing."""
    text = str(getattr(exc, "stderr", "") or exc)
    for marker in ("fatal:", "Timeout:", "error:"):
        at = text.find(marker)
        if at >= 0:
            return one_line(text[at:].splitlines()[0].strip(" '\"")).removesuffix("'")[:200]
    lines = [ln.strip(" '\"") for ln in text.splitlines() if ln.strip(" '\"")]
    return one_line(lines[-1] if lines else type(exc).__name__)[:200]


def _run(git: Any, args: list[str], *, timeout: float, cwd: Path | None = None) -> str:
    g = git.Git(str(cwd) if cwd else None)
    with g.custom_environment(**GIT_ENV):
        return str(g.execute(["git", *args], kill_after_timeout=timeout))  # gitpython's execute() is typed Any


def ls_remote(url: str, *patterns: str) -> dict[str, str]:
    """{refname: sha} for the given patterns; raises Unreachable quickly without network."""
    git = _git_module()
    try:
        out = _run(git, ["ls-remote", url, *patterns], timeout=PROBE_TIMEOUT_S)
    except git.GitCommandError as exc:
        raise Unreachable(f"cannot reach {url}: {_reason(exc)}") from None
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if sha and name:
            refs[name.strip()] = sha.strip()
    return refs


def resolve_ref(url: str, name: str) -> tuple[str, str, bool]:
    """(commit sha, full ref name, is_tag) of a tag, else a branch, at url."""
    tag = f"refs/tags/{name}"
    head = f"refs/heads/{name}"
    refs = ls_remote(url, tag, tag + "^{}", head)
    if tag in refs:
        return refs.get(tag + "^{}", refs[tag]), tag, True
    if head in refs:
        return refs[head], head, False
    raise NotFound(f"no tag or branch '{name}' at {url}")


def resolve_short_sha(url: str, prefix: str, workdir: Path) -> str:
    """Expand an abbreviated sha from a commits-only (treeless) fetch of every branch and tag."""
    git = _git_module()
    repo_dir = workdir / "resolve"
    try:
        _run(git, ["init", "-q", "--bare", str(repo_dir)], timeout=PROBE_TIMEOUT_S)
        _run(git, ["fetch", "-q", "--filter=tree:0", url,
                   "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
             timeout=FETCH_TIMEOUT_S, cwd=repo_dir)
    except git.GitCommandError as exc:
        raise Unreachable(f"cannot fetch history from {url}: {_reason(exc)}") from None
    try:
        return _run(git, ["rev-parse", "--verify", "--quiet", f"{prefix}^{{commit}}"],
                    timeout=PROBE_TIMEOUT_S, cwd=repo_dir).strip()
    except git.GitCommandError:
        raise NotFound(f"no commit {prefix} at {url} (unknown or ambiguous abbreviation)") from None


def fetch_tree(url: str, what: str, sha: str | None, builder: TreeBuilder, *, workdir: Path,
               progress: Callable[[str], None]) -> GitResult:
    """Fetch ``what`` (a full ref name or a full sha) shallowly and copy python/sglang/**.py."""
    git = _git_module()
    repo_dir = workdir / "checkout"
    progress(f"git: fetching {what} from {url}")
    try:
        _run(git, ["init", "-q", str(repo_dir)], timeout=PROBE_TIMEOUT_S)
        for key, value in (("remote.origin.url", url), ("remote.origin.promisor", "true"),
                           ("remote.origin.partialclonefilter", "blob:none")):
            _run(git, ["config", key, value], timeout=PROBE_TIMEOUT_S, cwd=repo_dir)
        # Blobless + sparse: only the blobs under python/sglang that end in .py travel.
        _run(git, ["fetch", "-q", "--depth", "1", "--filter=blob:none", "--no-tags", "origin", what],
             timeout=FETCH_TIMEOUT_S, cwd=repo_dir)
        commit = _run(git, ["rev-parse", "--verify", "FETCH_HEAD^{commit}"],
                      timeout=PROBE_TIMEOUT_S, cwd=repo_dir).strip()
    except git.GitCommandError as exc:
        text = str(getattr(exc, "stderr", "") or exc).lower()
        if any(m in text for m in ("not our ref", "couldn't find remote ref", "no such remote ref",
                                   "unadvertised object")):
            raise NotFound(f"no {what} at {url}") from None
        raise Unreachable(f"cannot fetch {what} from {url}: {_reason(exc)}") from None
    if sha and commit != sha:
        raise SourceError(f"{url} served commit {commit[:12]} for {what}, expected {sha[:12]}")
    try:
        _run(git, ["sparse-checkout", "set", "--no-cone", f"/{PACKAGE_PATH}/**/*.py",
                   "/python/pyproject.toml"], timeout=PROBE_TIMEOUT_S, cwd=repo_dir)
        _run(git, ["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit],
             timeout=FETCH_TIMEOUT_S, cwd=repo_dir)
    except git.GitCommandError as exc:
        raise Unreachable(f"cannot check out {commit[:12]} from {url}: {_reason(exc)}") from None
    base = repo_dir / "python"
    if not (base / "sglang").is_dir():
        raise NotFound(f"commit {commit[:12]} at {url} has no {PACKAGE_PATH} package")
    for dirpath, dirnames, filenames in os.walk(base / "sglang"):
        dirnames.sort()
        for name in filenames:
            full = Path(dirpath) / name
            relpath = full.relative_to(base).as_posix()
            if is_wanted(relpath) and full.is_file() and not full.is_symlink():
                builder.add(relpath, full.read_bytes())
    pyproject = base / "pyproject.toml"
    pv = version_from_pyproject(pyproject.read_text(errors="replace")) if pyproject.is_file() else None
    return GitResult(commit, what if what.startswith("refs/") else None, pv)


def make_workdir(tmp_root: Path) -> Path:
    tmp_root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="git-", dir=tmp_root))


def remove_workdir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
