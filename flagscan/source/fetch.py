"""source: get_source(): resolve a revision spec through the cache and the providers."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flagscan.source import gitsrc, local, pypi
from flagscan.source.archive import extract_archive
from flagscan.source.cache import Cache, TreeBuilder, default_cache_dir
from flagscan.source.model import NotFound, SourceError, SourceTree, Unreachable, read_version
from flagscan.source.spec import Spec, SpecKind, parse_spec

Progress = Callable[[str], None]
T = TypeVar("T")


def _quiet(_: str) -> None:
    return None


def get_source(spec: str, *, cache_dir: Path | None = None, offline: bool = False,
               git_url: str | None = None, progress: Progress | None = None) -> SourceTree:
    """The sglang/ package tree for ``spec``; raises SourceError (one line) on failure.

    Order for a release ``X``: the cache (git tag vX, then PyPI X), then git tag ``vX``,
    then PyPI ``sglang==X`` when git is unreachable or lacks the tag. Tags and commits
    use the cache then git. Paths, archives and ``installed`` need no network.
    """
    parsed = parse_spec(spec)
    cache = Cache(Path(cache_dir) if cache_dir else default_cache_dir())
    url = git_url or os.environ.get("FLAGSCAN_GIT_URL") or gitsrc.DEFAULT_GIT_URL
    try:
        return _dispatch(parsed, cache, url, offline, progress or _quiet)
    except OSError as exc:  # an unwritable cache dir, a full disk, an unreadable file
        where = f" ({exc.filename})" if exc.filename else ""
        raise SourceError(f"cannot get sglang {spec}: {exc.strerror or exc}{where}") from None


def _dispatch(parsed: Spec, cache: Cache, url: str, offline: bool, say: Progress) -> SourceTree:
    spec = parsed.text
    if parsed.kind is SpecKind.DIRECTORY:
        return local.from_directory(Path(parsed.value), spec)
    if parsed.kind is SpecKind.INSTALLED:
        return local.from_installed(spec)
    if parsed.kind is SpecKind.ARCHIVE:
        return _from_archive(parsed, cache, say)
    return _from_remote(parsed, cache, url, offline, say)


# -- cache lookups --------------------------------------------------------------------
# The provider a ref's namespace means, for refs written before they recorded it.
_NAMESPACE_PROVIDER = {"pypi": "pypi", "git": "git", "file": "local"}


def _tree(cache: Cache, spec: Spec, ref: dict[str, Any], provider: str, origin: str) -> SourceTree:
    """A tree fetched now by `provider`."""
    digest = ref["digest"]
    return SourceTree(cache.tree_path(digest), spec.text, ref.get("version"), provider, digest, origin)


def _from_cache(cache: Cache, spec: Spec, ref: dict[str, Any], namespace: str, origin: str) -> SourceTree:
    """A tree served from the cache: its provider is where it was fetched from, `cached` says the rest."""
    digest = ref["digest"]
    recorded = ref.get("provider")
    provider = recorded if isinstance(recorded, str) else _NAMESPACE_PROVIDER[namespace]
    return SourceTree(cache.tree_path(digest), spec.text, ref.get("version"), provider, digest,
                      f"{origin} (cached in {cache.tree_path(digest)})", cached=True)


def _damage(cache: Cache, digest: str, say: Progress) -> None:
    """Say on stderr why a cached tree is fetched again (a damaged or corrupt one; missing is silent)."""
    found = cache.check_tree(digest)
    if found.status in ("damaged", "corrupt"):
        say(f"cache: {found.describe(cache.tree_path(digest))}; fetching it again")


def _cached(cache: Cache, spec: Spec, url: str) -> tuple[tuple[dict[str, Any], str] | None, list[str]]:
    """((a ref whose tree is intact, its namespace), descriptions of refs whose tree is not)."""
    ukey = gitsrc.url_key(url)
    candidates: list[tuple[dict[str, Any] | None, str]] = []
    if spec.git_tag:
        tag = cache.read_ref("git", ukey, "tags", spec.git_tag)
        if tag and isinstance(tag.get("sha"), str):
            candidates.append((cache.read_ref("git", ukey, "commits", tag["sha"]), "git"))
    if spec.kind is SpecKind.COMMIT:
        candidates.extend((ref, "git") for ref in _commit_refs(cache, ukey, spec.value))
    if spec.pypi_version:
        candidates.append((cache.read_ref("pypi", spec.pypi_version), "pypi"))
    broken: list[str] = []
    for ref, namespace in candidates:
        if not ref or not isinstance(ref.get("digest"), str):
            continue
        found = cache.check_tree(ref["digest"])
        if found.ok:
            return (ref, namespace), broken
        broken.append(found.describe(cache.tree_path(ref["digest"])))
    return None, broken


def _commit_refs(cache: Cache, ukey: str, sha: str) -> list[dict[str, Any] | None]:
    if len(sha) == 40:
        return [cache.read_ref("git", ukey, "commits", sha)]
    folder = cache.ref_path("git", ukey, "commits", "x").parent
    matches = sorted(folder.glob(f"{sha}*.json")) if folder.is_dir() else []
    if len(matches) != 1:
        return []  # unknown or ambiguous abbreviation: let git decide
    return [cache.read_ref("git", ukey, "commits", matches[0].stem)]


# -- providers ------------------------------------------------------------------------
def _from_archive(spec: Spec, cache: Cache, say: Progress) -> SourceTree:
    path = Path(spec.value)
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    key = h.hexdigest()
    ref = cache.read_ref("file", key)
    if ref and isinstance(ref.get("digest"), str):
        if cache.check_tree(ref["digest"]).ok:
            return _from_cache(cache, spec, ref, "file", f"local: {path.name}")
        _damage(cache, ref["digest"], say)
    say(f"local: unpacking {path.name}")
    digest, version, _ = _build(cache, lambda b: extract_archive(path, b))
    ref = {"digest": digest, "version": version, "origin": f"local: {path.name}", "provider": "local"}
    cache.write_ref("file", key, data=ref)
    return _tree(cache, spec, ref, "local", f"local: {path.name} ({path})")


def _build(cache: Cache, fill: Callable[[TreeBuilder], T],
           fallback: Callable[[T], str | None] = lambda _: None) -> tuple[str, str | None, T]:
    """Fill a staging tree, read its version (as text), and commit it to the cache."""
    builder = cache.builder()
    try:
        result = fill(builder)
        version = read_version(builder.stage) or fallback(result)
    except BaseException:
        builder.discard()
        raise
    return cache.commit(builder, version=version), version, result


def _from_remote(spec: Spec, cache: Cache, url: str, offline: bool, say: Progress) -> SourceTree:
    hit, broken = _cached(cache, spec, url)
    if hit is not None:
        ref, namespace = hit
        return _from_cache(cache, spec, ref, namespace, ref.get("origin") or namespace)
    if offline:
        if broken:
            raise SourceError(
                f"the cache entry for sglang {spec.text} cannot be used ({broken[0]}) and --offline is set; "
                f"run `flagscan sources fetch {spec.text}` with network to repair it"
            )
        raise SourceError(
            f"sglang {spec.text} is not in the cache ({cache.root}) and --offline is set; "
            f"run `flagscan sources fetch {spec.text}` with network"
        )
    for why in broken:
        say(f"cache: {why}; fetching it again")
    failures: list[str] = []
    git_error: SourceError | None = None
    try:
        return _via_git(spec, cache, url, say)
    except (Unreachable, NotFound) as exc:
        git_error = exc
        failures.append(f"git: {exc}")
    version = spec.pypi_version
    if version is None:
        if isinstance(git_error, NotFound):
            raise SourceError(f"unknown SGLang revision '{spec.text}' ({failures[0]})") from None
        raise SourceError(
            f"cannot fetch sglang {spec.text}: no network and nothing cached in {cache.root} ({failures[0]})"
        ) from None
    say(f"git failed ({git_error}); trying PyPI")
    try:
        return _via_pypi(spec, version, cache, say, because=str(git_error))
    except Unreachable as exc:
        failures.append(f"pypi: {exc}")
        raise SourceError(
            f"cannot fetch sglang {spec.text}: no network and nothing cached in {cache.root} "
            f"({'; '.join(failures)})"
        ) from None
    except NotFound as exc:
        failures.append(f"pypi: {exc}")
        raise SourceError(f"unknown SGLang revision '{spec.text}' ({'; '.join(failures)})") from None


def _via_git(spec: Spec, cache: Cache, url: str, say: Progress) -> SourceTree:
    ukey = gitsrc.url_key(url)
    workdir = gitsrc.make_workdir(cache.tmp)
    try:
        if spec.kind is SpecKind.COMMIT:
            gitsrc.ls_remote(url, "HEAD")  # fail fast without network
            sha = spec.value if len(spec.value) == 40 else gitsrc.resolve_short_sha(url, spec.value, workdir)
            what, is_tag = sha, False
        else:
            tag = spec.git_tag or spec.value
            sha, what, is_tag = gitsrc.resolve_ref(url, tag)
        known = cache.read_ref("git", ukey, "commits", sha)
        if known and isinstance(known.get("digest"), str) and cache.check_tree(known["digest"]).ok:
            if is_tag:
                cache.write_ref("git", ukey, "tags", what.removeprefix("refs/tags/"), data={"sha": sha, "url": url})
            return _from_cache(cache, spec, known, "git", known.get("origin") or f"git: {sha[:12]}")
        tag_version = spec.pypi_version
        # A git checkout has no generated _version.py: fall back to a static pyproject
        # version, then to the release the tag names.
        digest, version, _ = _build(
            cache,
            lambda b: gitsrc.fetch_tree(url, what, sha, b, workdir=workdir, progress=say),
            lambda r: r.pyproject_version or tag_version,
        )
    finally:
        gitsrc.remove_workdir(workdir)
    label = what.removeprefix("refs/tags/").removeprefix("refs/heads/")
    origin = f"git: {label} ({sha[:12]}) from {url}" if label != sha else f"git: {sha[:12]} from {url}"
    ref = {"digest": digest, "version": version, "origin": origin, "sha": sha, "url": url, "provider": "git"}
    cache.write_ref("git", ukey, "commits", sha, data=ref)
    if is_tag:
        cache.write_ref("git", ukey, "tags", label, data={"sha": sha, "url": url})
    return _tree(cache, spec, ref, "git", origin)


def _via_pypi(spec: Spec, version: str, cache: Cache, say: Progress, *, because: str) -> SourceTree:
    cache.tmp.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pip-", dir=cache.tmp) as tmp:
        dist = pypi.download(version, Path(tmp), progress=say)
        say(f"pypi: unpacking {dist.name}")
        digest, found, _ = _build(cache, lambda b: extract_archive(dist, b), lambda _: version)
        _keep_metadata(cache, found or version, dist, say)
    origin = f"pypi: {dist.name}"
    ref = {"digest": digest, "version": found, "origin": origin, "provider": "pypi"}
    cache.write_ref("pypi", version, data=ref)
    return _tree(cache, spec, ref, "pypi", f"{origin} (git failed: {because})")


def _keep_metadata(cache: Cache, version: str, dist: Path, say: Progress) -> None:
    """The wheel's Requires-Dist and console scripts, kept while the wheel is at hand."""
    from flagscan.source.release_meta import store

    try:
        store(cache, version, dist)
    except SourceError as exc:
        say(f"pypi: {exc}; the release's package pins stay unknown")
