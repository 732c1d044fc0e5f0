"""source: wheels and sdists given as a file spec, and the refusal of unsafe members."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import TINY, assert_one_line, make_sdist, make_wheel, package_files

from flagscan.source import SourceError, get_source
from flagscan.source.local import from_directory


def test_wheel_file_is_unpacked_and_cached(tmp_path: Path, cache_dir: Path) -> None:
    wheel = make_wheel(tmp_path / "sglang-0.0.1-py3-none-any.whl",
                       {**package_files(), "sglang-0.0.1.dist-info/METADATA": b"Name: sglang\n",
                        "tools/helper.py": b"x = 1\n"})
    tree = get_source(str(wheel), cache_dir=cache_dir)
    assert tree.provider == "local" and tree.version == "0.0.1"
    assert (tree.root / "sglang/srt/server_args.py").is_file()
    assert not (tree.root / "sglang/srt/configs.json").exists()   # only Python is kept
    assert not (tree.root / "tools").exists()
    assert tree.digest == from_directory(TINY, "tiny").digest
    again = get_source(str(wheel), cache_dir=cache_dir)
    assert not tree.cached and again.cached and again.provider == "local" and again.digest == tree.digest


@pytest.mark.parametrize("prefix", ["sglang-0.0.1/", "sglang-main/python/"])
def test_sdist_layouts(tmp_path: Path, cache_dir: Path, prefix: str) -> None:
    sdist = make_sdist(tmp_path / "sglang-0.0.1.tar.gz", package_files(), prefix=prefix)
    tree = get_source(str(sdist), cache_dir=cache_dir)
    assert tree.version == "0.0.1"
    assert tree.digest == from_directory(TINY, "tiny").digest


@pytest.mark.parametrize("evil", ["../evil.py", "sglang/../../evil.py", "/etc/evil.py", "sglang\\..\\evil.py"])
def test_wheel_with_traversal_member_is_refused(tmp_path: Path, cache_dir: Path, evil: str) -> None:
    wheel = make_wheel(tmp_path / "evil.whl", {**package_files(), evil: b"boom = 1\n"})
    with pytest.raises(SourceError) as err:
        get_source(str(wheel), cache_dir=cache_dir)
    assert "refusing" in assert_one_line(err.value)
    assert not (tmp_path / "evil.py").exists() and not (cache_dir.parent / "evil.py").exists()
    assert not (cache_dir / "trees").exists() or not any((cache_dir / "trees").iterdir())


@pytest.mark.parametrize("evil", ["../evil.py", "/abs/evil.py"])
def test_sdist_with_traversal_member_is_refused(tmp_path: Path, cache_dir: Path, evil: str) -> None:
    sdist = make_sdist(tmp_path / "evil.tar.gz", {**package_files(), evil: b"boom = 1\n"})
    with pytest.raises(SourceError) as err:
        get_source(str(sdist), cache_dir=cache_dir)
    assert "refusing" in assert_one_line(err.value)


def test_symlink_members_are_refused(tmp_path: Path, cache_dir: Path) -> None:
    sdist = make_sdist(tmp_path / "link.tar.gz", package_files(), symlinks={"sglang/srt/link.py": "/etc/passwd"})
    with pytest.raises(SourceError) as err:
        get_source(str(sdist), cache_dir=cache_dir)
    assert "link" in assert_one_line(err.value)
    wheel = make_wheel(tmp_path / "link.whl", package_files(), symlinks={"sglang/srt/link.py": "/etc/passwd"})
    with pytest.raises(SourceError):
        get_source(str(wheel), cache_dir=cache_dir)


def test_archive_without_sglang_package(tmp_path: Path, cache_dir: Path) -> None:
    wheel = make_wheel(tmp_path / "other-1.0-py3-none-any.whl", {"other/__init__.py": b""})
    with pytest.raises(SourceError) as err:
        get_source(str(wheel), cache_dir=cache_dir)
    assert "no sglang package" in assert_one_line(err.value)


def test_not_an_archive(tmp_path: Path, cache_dir: Path) -> None:
    bogus = tmp_path / "bogus.whl"
    bogus.write_bytes(b"not a zip")
    with pytest.raises(SourceError) as err:
        get_source(str(bogus), cache_dir=cache_dir)
    assert_one_line(err.value)
