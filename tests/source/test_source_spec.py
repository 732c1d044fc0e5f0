"""source: revision specs are classified without touching the network."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import TINY, assert_one_line

from flagscan.source import SourceError
from flagscan.source.spec import SpecKind, parse_spec


@pytest.mark.parametrize("text, kind, pypi, tag", [
    ("0.5.10", SpecKind.RELEASE, "0.5.10", "v0.5.10"),
    ("0.5.10.post1", SpecKind.RELEASE, "0.5.10.post1", "v0.5.10.post1"),
    ("0.5.0rc2", SpecKind.RELEASE, "0.5.0rc2", "v0.5.0rc2"),
    ("v0.5.10", SpecKind.TAG, "0.5.10", "v0.5.10"),
    ("main", SpecKind.TAG, None, "main"),
    ("1a2b3c4", SpecKind.COMMIT, None, None),
    ("1A2B3C4D5E6F7A8B9C0D1A2B3C4D5E6F7A8B9C0D", SpecKind.COMMIT, None, None),
    ("installed", SpecKind.INSTALLED, None, None),
])
def test_kinds(text: str, kind: SpecKind, pypi: str | None, tag: str | None) -> None:
    spec = parse_spec(text)
    assert (spec.kind, spec.pypi_version, spec.git_tag) == (kind, pypi, tag)
    assert spec.text == text


def test_paths(tmp_path: Path) -> None:
    assert parse_spec(str(TINY)).kind is SpecKind.DIRECTORY
    wheel = tmp_path / "sglang-0.0.1-py3-none-any.whl"
    wheel.write_bytes(b"")
    assert parse_spec(str(wheel)).kind is SpecKind.ARCHIVE
    (tmp_path / "notes.txt").write_text("")
    for bad in (str(tmp_path / "nope.whl"), str(tmp_path / "notes.txt"), "./missing-dir", "", "a b", "-x"):
        with pytest.raises(SourceError) as err:
            parse_spec(bad)
        assert_one_line(err.value)


def test_the_upstream_repository_is_rule_data_only() -> None:
    """rules/sources.toml [git] says where SGLang lives; no module under flagscan/ restates it."""
    import flagscan
    from flagscan.ruledata import load
    from flagscan.source import gitsrc

    git = load("sources")["git"]
    assert (gitsrc.DEFAULT_GIT_URL, gitsrc.PACKAGE_PATH) == (git["url"], git["package_path"])
    assert parse_spec("0.5.10").git_tag == git["tag_format"].format(version="0.5.10")
    for path in Path(flagscan.__file__).parent.rglob("*.py"):
        text = path.read_text()
        assert git["url"] not in text and f'"{git["package_path"]}"' not in text, path
        assert 'f"v{self.value}"' not in text, path
