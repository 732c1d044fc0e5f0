"""source: local directories (checkout, parent dir, the package itself) and `installed`."""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

import pytest
from source_helpers import TINY, assert_one_line

from flagscan.source import SourceError, get_source, local


@pytest.mark.parametrize("where", [TINY, TINY / "python", TINY / "python" / "sglang"])
def test_directory_forms(where: Path, cache_dir: Path) -> None:
    tree = get_source(str(where), cache_dir=cache_dir, offline=True)
    assert tree.provider == "local" and tree.root == TINY / "python"
    assert tree.version == "0.0.1" and tree.revision == str(where)
    assert tree.served_by == f"local: {TINY / 'python' / 'sglang'}"
    assert not cache_dir.exists()   # served in place, nothing copied


def test_version_from_setuptools_scm_file(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(TINY / "python" / "sglang", root / "sglang")
    (root / "sglang" / "version.py").write_text("from sglang._version import __version__\n")
    (root / "sglang" / "_version.py").write_text(
        "version: str\n__version__: str\n__version__ = version = '0.5.99'\n")
    assert get_source(str(root)).version == "0.5.99"


def test_directory_without_sglang(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError) as err:
        get_source(str(tmp_path / "empty"))
    assert "contains no sglang package" in assert_one_line(err.value)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as err:
        get_source(str(tmp_path / "nope"))
    assert "does not exist" in assert_one_line(err.value)


class FakeDist:
    def __init__(self, site: Path, files: list[str], version: str = "0.0.1", direct_url: str | None = None):
        self.site, self.version, self.direct_url = site, version, direct_url
        self.files = [metadata.PackagePath(f) for f in files]

    def locate_file(self, path: metadata.PackagePath) -> Path:
        return self.site / str(path)

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None


def test_installed_located_through_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"
    shutil.copytree(TINY / "python" / "sglang", site / "sglang")
    dist = FakeDist(site, ["sglang-0.0.1.dist-info/METADATA", "sglang/__init__.py", "sglang/srt/server_args.py"])
    monkeypatch.setattr(local.metadata, "distribution", lambda name: dist)
    tree = get_source("installed", offline=True)
    assert tree.provider == "installed" and tree.root == site and tree.version == "0.0.1"
    assert tree.served_by == f"installed: sglang 0.0.1 at {site / 'sglang'}"


def test_installed_editable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = FakeDist(tmp_path, ["__editable__.sglang-0.0.1.pth"],
                    direct_url=f'{{"url": "{(TINY / "python").as_uri()}", "dir_info": {{"editable": true}}}}')
    monkeypatch.setattr(local.metadata, "distribution", lambda name: dist)
    assert get_source("installed").root == TINY / "python"


def test_installed_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(local.metadata, "distribution", missing)
    with pytest.raises(SourceError) as err:
        get_source("installed")
    assert "no sglang distribution is installed" in assert_one_line(err.value)


def test_installed_never_imports_sglang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"
    shutil.copytree(TINY / "python" / "sglang", site / "sglang")
    (site / "sglang" / "__init__.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(local.metadata, "distribution", lambda name: FakeDist(site, ["sglang/__init__.py"]))
    assert get_source("installed").version == "0.0.1"
