"""source: unpack the sglang/ Python files of a wheel or sdist, refusing unsafe members."""

from __future__ import annotations

import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from flagscan.source.cache import TreeBuilder
from flagscan.source.model import PACKAGE, SourceError, is_wanted

if TYPE_CHECKING:
    import tarfile
    import zipfile

MAX_TOTAL_BYTES = 1 << 30  # the .py files of the largest SGLang wheels are ~70 MB


@dataclass(frozen=True, slots=True)
class Member:
    name: str                       # normalised: no leading "./", no empty parts
    kind: str                       # "file" | "dir" | "link" | "other"
    size: int
    read: Callable[[], bytes]


def _normalise(archive: Path, raw: str) -> str:
    unsafe = (
        raw.startswith(("/", "\\"))
        or "\\" in raw
        or (len(raw) > 1 and raw[1] == ":")
        or ".." in raw.split("/")
    )
    if unsafe:
        raise SourceError(
            f"refusing {archive.name}: member '{raw}' has an absolute path or '..' (path traversal)"
        )
    return "/".join(p for p in raw.split("/") if p not in ("", "."))


def _zip_members(archive: Path, zf: zipfile.ZipFile) -> Iterator[Member]:
    for info in zf.infolist():
        mode = (info.external_attr >> 16) & 0o170000
        if mode == stat.S_IFLNK:
            kind = "link"
        elif info.is_dir():
            kind = "dir"
        elif mode in (0, stat.S_IFREG):
            kind = "file"
        else:
            kind = "other"
        yield Member(_normalise(archive, info.filename), kind, info.file_size, partial(zf.read, info))


def _tar_members(archive: Path, tf: tarfile.TarFile) -> Iterator[Member]:
    for info in tf.getmembers():
        if info.issym() or info.islnk():
            kind = "link"
        elif info.isdir():
            kind = "dir"
        elif info.isreg():
            kind = "file"
        else:
            kind = "other"

        def read(info: tarfile.TarInfo = info) -> bytes:
            fh = tf.extractfile(info)
            if fh is None:  # pragma: no cover - only regular files are read
                raise SourceError(f"cannot read {info.name} from {archive.name}")
            return fh.read()

        yield Member(_normalise(archive, info.name), kind, info.size, read)


def _package_prefix(archive: Path, members: list[Member]) -> str:
    """'' for a wheel (sglang/...), 'sglang-0.5.10/' for an sdist, '<top>/python/' for a repo archive."""
    markers = [
        m.name for m in members
        if m.kind == "file" and m.name.rsplit("/", 2)[-2:] in (["sglang", "__init__.py"], ["sglang", "version.py"])
    ]
    if not markers:
        raise SourceError(f"{archive.name} contains no sglang package (no sglang/__init__.py or sglang/version.py)")
    best = min(markers, key=lambda n: n.count("/"))
    return best[: best.rindex(PACKAGE + "/")]


def extract_archive(archive: Path, builder: TreeBuilder) -> None:
    """Copy the wanted ``sglang/**.py`` members of a wheel or sdist into ``builder``."""
    import tarfile  # here, not at import: a warm run never unpacks
    import zipfile

    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                _extract(archive, list(_zip_members(archive, zf)), builder)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tf:
                _extract(archive, list(_tar_members(archive, tf)), builder)
        else:
            raise SourceError(f"{archive} is not a wheel (zip) or sdist (tar.gz)")
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise SourceError(f"cannot read {archive.name}: {exc}") from None


def _extract(archive: Path, members: list[Member], builder: TreeBuilder) -> None:
    prefix = _package_prefix(archive, members)
    stage = builder.stage.resolve()
    total = 0
    for m in members:
        if not m.name.startswith(prefix + PACKAGE + "/"):
            continue
        relpath = m.name[len(prefix):]
        if m.kind in ("link", "other"):
            raise SourceError(f"refusing {archive.name}: member '{m.name}' is a link or special file")
        if m.kind != "file" or not is_wanted(relpath):
            continue
        target = (stage / relpath).resolve()
        if not target.is_relative_to(stage):
            raise SourceError(f"refusing {archive.name}: member '{m.name}' escapes the target directory")
        total += m.size
        if total > MAX_TOTAL_BYTES:
            raise SourceError(f"refusing {archive.name}: its sglang/ Python files exceed {MAX_TOTAL_BYTES >> 20} MiB")
        builder.add(relpath, m.read())
