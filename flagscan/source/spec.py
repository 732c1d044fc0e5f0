"""source: parse a revision spec (release, tag, commit, path, archive, installed)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from flagscan.ruledata import load
from flagscan.source.model import SourceError


class SpecKind(str, Enum):
    RELEASE = "release"    # 0.5.10: git tag v0.5.10, else PyPI sglang==0.5.10
    TAG = "tag"            # v0.5.10 (or any other git ref name)
    COMMIT = "commit"      # 7-40 hex digits
    DIRECTORY = "directory"
    ARCHIVE = "archive"    # a wheel or sdist file
    INSTALLED = "installed"


ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip")
_RELEASE_RE = re.compile(r"^\d+(\.\d+)+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")
_SHA_RE = re.compile(r"^[0-9a-fA-F]{7,40}$")
# A conservative subset of git's ref-name rules: no spaces, no "..", no leading "-".
_REF_RE = re.compile(r"^(?!-)(?!.*\.\.)[A-Za-z0-9._/+-]+$")


@dataclass(frozen=True, slots=True)
class Spec:
    text: str          # as the user gave it
    kind: SpecKind
    value: str         # release number, tag name, lower-case sha, or absolute path

    @property
    def pypi_version(self) -> str | None:
        """The PyPI release a spec names, when it names one (``0.5.10``, ``v0.5.10``)."""
        if self.kind is SpecKind.RELEASE:
            return self.value
        if self.kind is SpecKind.TAG and self.value.startswith("v"):
            rest = self.value[1:]
            if _RELEASE_RE.match(rest):
                return rest
        return None

    @property
    def git_tag(self) -> str | None:
        if self.kind is SpecKind.RELEASE:
            return str(load("sources")["git"]["tag_format"]).format(version=self.value)
        if self.kind is SpecKind.TAG:
            return self.value
        return None


def _looks_like_path(text: str) -> bool:
    return (
        text.startswith((".", "/", "~"))
        or "\\" in text
        or text.endswith(ARCHIVE_SUFFIXES)
        or (("/" in text) and not text.startswith("refs/"))
    )


def parse_spec(text: str) -> Spec:
    raw = text.strip()
    if not raw:
        raise SourceError("empty SGLang revision; give a release (0.5.10), a tag, a commit, a path or 'installed'")
    if raw == "installed":
        return Spec(text, SpecKind.INSTALLED, raw)
    path = Path(raw).expanduser()
    if path.exists() or _looks_like_path(raw):
        if not path.exists():
            raise SourceError(f"SGLang revision '{raw}' looks like a path but {path} does not exist")
        resolved = str(path.resolve())
        if path.is_dir():
            return Spec(text, SpecKind.DIRECTORY, resolved)
        if raw.endswith(ARCHIVE_SUFFIXES):
            return Spec(text, SpecKind.ARCHIVE, resolved)
        raise SourceError(f"{path} is neither a directory nor a wheel/sdist (.whl, .tar.gz)")
    if _RELEASE_RE.match(raw):
        return Spec(text, SpecKind.RELEASE, raw)
    if _SHA_RE.match(raw) and not raw.isdigit():
        return Spec(text, SpecKind.COMMIT, raw.lower())
    if _SHA_RE.match(raw):
        # All digits: git would read it as a sha prefix too; say so rather than guess.
        return Spec(text, SpecKind.COMMIT, raw)
    if _REF_RE.match(raw) and not raw.endswith((".lock", "/", ".")):
        return Spec(text, SpecKind.TAG, raw)
    raise SourceError(
        f"cannot read SGLang revision '{raw}': expected a release (0.5.10), a tag (v0.5.10), "
        "a commit sha, a directory, a wheel/sdist file, or 'installed'"
    )
