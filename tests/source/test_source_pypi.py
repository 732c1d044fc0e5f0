"""source: the PyPI provider with pip replaced by a fake, and the git -> PyPI fallback."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import UNREACHABLE_URL, assert_one_line, make_wheel, package_files

from flagscan.source import SourceError, get_source, pypi

NETWORK_DOWN = (
    "WARNING: Retrying (Retry(total=0, ...)) after connection broken by "
    "'NewConnectionError(\"Failed to establish a new connection: [Errno -3] "
    "Temporary failure in name resolution\")': /simple/sglang/\n"
    "ERROR: Could not find a version that satisfies the requirement sglang==0.0.1 (from versions: none)\n"
    "ERROR: No matching distribution found for sglang==0.0.1\n"
)


class FakePip:
    """Stands in for `pip download`: answers from a script of (rc, output, wheel name)."""

    def __init__(self, *answers: tuple[int, str, str | None]) -> None:
        self.answers = list(answers)
        self.calls: list[list[str]] = []

    def __call__(self, args: list[str], timeout: float) -> tuple[int, str]:
        self.calls.append(args)
        rc, output, wheel = self.answers.pop(0)
        if wheel:
            dest = Path(args[args.index("--dest") + 1])
            make_wheel(dest / wheel, package_files())
        return rc, output


def test_release_falls_back_to_pypi_when_git_is_unreachable(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakePip((0, "Saved sglang-0.0.1-py3-none-any.whl", "sglang-0.0.1-py3-none-any.whl"))
    monkeypatch.setattr(pypi, "_run_pip", fake)
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert tree.provider == "pypi" and tree.version == "0.0.1"
    assert tree.served_by.startswith("pypi: sglang-0.0.1-py3-none-any.whl (git failed:")
    assert "sglang==0.0.1" in fake.calls[0] and "--no-deps" in fake.calls[0]
    assert (tree.root / "sglang/srt/server_args.py").is_file()
    again = get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert again.provider == "pypi" and again.cached and not tree.cached
    assert again.digest == tree.digest and len(fake.calls) == 1
    offline = get_source("0.0.1", cache_dir=cache_dir, offline=True)   # default git URL: still a hit
    assert offline.served_by.startswith("pypi: sglang-0.0.1-py3-none-any.whl (cached in")


def test_v_tag_falls_back_to_pypi(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pypi, "_run_pip", FakePip((0, "", "sglang-0.0.1-py3-none-any.whl")))
    assert get_source("v0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL).provider == "pypi"


def test_platform_fallback(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What pip says on Python 3.10 for a release that ships only cp311 wheels: not listed.
    fake = FakePip(
        (1, "ERROR: Could not find a version that satisfies the requirement sglang==0.0.1 "
            "(from versions: 0.0.0)\nERROR: No matching distribution found for sglang==0.0.1\n", None),
        (0, "", "sglang-0.0.1-cp311-cp311-manylinux_2_34_x86_64.whl"),
    )
    monkeypatch.setattr(pypi, "_run_pip", fake)
    tree = get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert tree.provider == "pypi"
    assert "--platform" not in fake.calls[0]
    assert fake.calls[1][-5:] == pypi.PLATFORM_ARGS


def test_unknown_release_everywhere(git_server, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_listed = ("ERROR: Could not find a version that satisfies the requirement sglang==9.9.9 "
                  "(from versions: 0.0.1, 0.0.2)\nERROR: No matching distribution found\n")
    fake = FakePip((1, not_listed, None), (1, not_listed, None))
    monkeypatch.setattr(pypi, "_run_pip", fake)
    with pytest.raises(SourceError) as err:
        get_source("9.9.9", cache_dir=cache_dir, git_url=git_server.url)
    text = assert_one_line(err.value)
    assert "unknown SGLang revision '9.9.9'" in text and "v9.9.9" in text and "sglang==9.9.9" in text
    assert len(fake.calls) == 2   # pip lists only installable versions: the platform retry decides


def test_no_network_and_no_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pypi, "_run_pip", FakePip((1, NETWORK_DOWN, None)))
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    text = assert_one_line(err.value)
    assert "no network" in text and str(cache_dir) in text


def test_pip_timeout_counts_as_unreachable(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pypi, "_run_pip", FakePip((124, "pip download did not finish in 900 s", None)))
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert "no network" in assert_one_line(err.value)


def test_pypi_wheel_with_traversal_is_refused(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def evil_pip(args: list[str], timeout: float) -> tuple[int, str]:
        dest = Path(args[args.index("--dest") + 1])
        make_wheel(dest / "sglang-0.0.1-py3-none-any.whl", {**package_files(), "../../evil.py": b""})
        return 0, ""

    monkeypatch.setattr(pypi, "_run_pip", evil_pip)
    with pytest.raises(SourceError) as err:
        get_source("0.0.1", cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert "refusing" in assert_one_line(err.value)


def test_commit_spec_never_tries_pypi(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pypi, "_run_pip", FakePip())
    with pytest.raises(SourceError) as err:
        get_source("a" * 40, cache_dir=cache_dir, git_url=UNREACHABLE_URL)
    assert "no network" in assert_one_line(err.value)
