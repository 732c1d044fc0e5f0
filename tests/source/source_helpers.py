"""source: helpers shared by the source-stage tests (fake archives, error checks)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "trees" / "tiny"
UNREACHABLE_URL = "file:///nonexistent/flagscan-test/sglang.git"


@dataclass(frozen=True, slots=True)
class GitServer:
    path: Path
    url: str
    sha1: str   # commit of tag v0.0.1 (annotated)
    sha2: str   # commit of tag v0.0.2 (lightweight)


def package_files(root: Path = TINY / "python") -> dict[str, bytes]:
    """{'sglang/...': bytes} of the tiny tree's package (every file, .py or not)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "sglang").rglob("*")) if p.is_file() and "__pycache__" not in p.parts
    }


def make_wheel(path: Path, files: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16)
            zf.writestr(info, target)
    return path


def make_sdist(path: Path, files: dict[str, bytes], *, prefix: str = "sglang-0.0.1/",
               symlinks: dict[str, str] | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(prefix + name if not name.startswith(("/", "..")) else name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for name, target in (symlinks or {}).items():
            info = tarfile.TarInfo(prefix + name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tf.addfile(info)
    return path


def assert_one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text
