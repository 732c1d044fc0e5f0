"""source: the distribution metadata of the release a tree was served for (its pins and
console scripts): the installed dist-info, a wheel file given as the revision, or the PyPI
wheel of its version (kept in the cache as meta/sglang-VERSION.json, beside the trees and
refs, so that `sources list` shows trees only)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from flagscan.source.cache import Cache, _read_json, _write_json_atomic
from flagscan.source.distmeta import DistMeta, read_installed, read_wheel
from flagscan.source.model import SourceError, SourceTree

FORMAT = 2   # 2: Requires-Dist read past a License field's indented blank lines
_RELEASE = re.compile(r"\d+(\.\d+)*(\.post\d+|rc\d+)?")


def store(cache: Cache, version: str, wheel: Path) -> DistMeta | None:
    """Read a downloaded sglang wheel's metadata and keep it for `version` (an sdist has none)."""
    if wheel.suffix != ".whl":
        return None
    meta = read_wheel(wheel)
    _write_json_atomic(_path(cache, version), {"format": FORMAT, "meta": meta.to_json()})
    return meta


def _path(cache: Cache, version: str) -> Path:
    return cache.root / "meta" / f"sglang-{version}.json"


def release_meta(tree: SourceTree, cache_dir: Path, *, offline: bool) -> tuple[DistMeta | None, str | None]:
    """(metadata, None), or (None, why it is not known): what the packages then stay (unknown)."""
    if tree.provider == "installed":
        meta = read_installed()
        return (meta, None) if meta is not None else (None, "no sglang dist-info is installed")
    given = Path(tree.revision)
    if given.suffix == ".whl" and given.is_file():
        try:
            return read_wheel(given), None
        except SourceError as exc:
            return None, str(exc)
    version = tree.version
    if tree.provider not in ("pypi", "git"):
        return None, f"a {tree.provider} tree is not a PyPI release"
    if not version or not _RELEASE.fullmatch(version):
        return None, f"sglang {version or tree.revision} is not a release on PyPI"
    cache = Cache(Path(cache_dir))
    hit = _read_json(_path(cache, version))
    if isinstance(hit, dict) and hit.get("format") == FORMAT and isinstance(hit.get("meta"), dict):
        return DistMeta.from_json(hit["meta"]), None
    if offline:
        return None, f"the metadata of sglang {version} is not cached (--offline)"
    from flagscan.source import pypi

    cache.tmp.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix="meta-", dir=cache.tmp) as tmp:
            dist = pypi.download(version, Path(tmp), progress=lambda _: None)
            meta = store(cache, version, dist)
    except SourceError as exc:
        return None, str(exc)
    return (meta, None) if meta is not None else (None, f"sglang {version} on PyPI is an sdist without wheel metadata")


__all__ = ["release_meta", "store"]
