"""evaluate: which packages the analysed run has, and their versions: `--package NAME=VERSION`,
the installed environment (`--sglang installed`), and the release's own pins (its wheel's
Requires-Dist). Which import name a distribution provides is rule data (rules/packages.toml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flagscan.ruledata import load
from flagscan.source.distmeta import DistMeta, normalise

if TYPE_CHECKING:
    from flagscan.source.hf_config_types import ConfigTypes
    from flagscan.source.model import SourceTree

ABSENT = "absent"


class PackageSpecError(ValueError):
    """A `--package` value that is not NAME=VERSION or NAME=absent (one line; exit 2)."""


@dataclass(frozen=True, slots=True)
class PackageFact:
    """One distribution as the run is taken to have it: `present` False is not installed;
    `version` None with `present` True is installed at a version not known."""

    name: str
    present: bool
    version: str | None
    origin: str   # "--package", "installed", "pinned by sglang 0.5.23", "required by sglang 0.5.23"

    @property
    def evidence(self) -> str:
        if not self.present:
            return f"package:{self.name} absent ({self.origin})"
        if self.version is not None:
            return f"package:{self.name}=={self.version} ({self.origin})"
        return f"package:{self.name} installed, version not pinned ({self.origin})"

    def to_json(self) -> dict[str, Any]:
        return {"present": self.present, "version": self.version, "origin": self.origin, "evidence": self.evidence}


@dataclass(frozen=True, slots=True)
class Packages:
    facts: dict[str, PackageFact] = field(default_factory=dict)
    # the model types the run's transformers registers for AutoConfig (read from its wheel at
    # the version decided here); None: not read
    config_types: ConfigTypes | None = None

    def dist(self, name: str) -> PackageFact | None:
        return self.facts.get(normalise(name))

    def module(self, module: str) -> tuple[str, PackageFact | None]:
        """The distribution that provides import name `module` (its top level) and what is known of it."""
        top = module.split(".")[0]
        names = load("packages").get("modules", {}).get(top) or [top]
        for name in names:
            fact = self.dist(name)
            if fact is not None:
                return normalise(name), fact
        return normalise(names[0]), None

    def key(self) -> list[list[Any]]:
        """For cache keys: every fact, sorted."""
        return [[n, f.present, f.version, f.origin] for n, f in sorted(self.facts.items())]


def parse_overrides(pairs: tuple[str, ...] | list[str]) -> dict[str, str | None]:
    """`--package NAME=VERSION` / `NAME=absent` -> {normalised name: version or None (absent)}."""
    out: dict[str, str | None] = {}
    if not pairs:
        return out
    from packaging.version import InvalidVersion, Version

    for pair in pairs:
        name, sep, version = pair.partition("=")
        name, version = name.strip(), version.strip()
        if not sep or not name or not version:
            raise PackageSpecError(f"--package {pair!r}: expected NAME=VERSION or NAME=absent")
        if version.lower() == ABSENT:
            out[normalise(name)] = None
            continue
        try:
            Version(version)
        except InvalidVersion:
            raise PackageSpecError(f"--package {pair!r}: {version!r} is not a version (or 'absent')") from None
        out[normalise(name)] = version
    return out


def build(meta: DistMeta | None, *, overrides: dict[str, str | None] | None = None,
          installed: dict[str, str | None] | None = None, vendor: str = "nvidia") -> Packages:
    """The facts in order of authority: the release's pins (on the vendors its wheel is built
    for), then what is installed (installed mode), then the command's --package."""
    facts: dict[str, PackageFact] = {}
    release = f"sglang {meta.version}" if meta is not None and meta.version else "the release"
    if meta is not None and vendor in load("packages").get("pins", {}).get("vendors", []):
        for req in meta.requires:
            if not req.default:
                continue   # an extra, or not for Linux x86_64: not part of `pip install sglang`
            if req.pinned is not None:
                facts[req.name] = PackageFact(req.name, True, req.pinned, f"pinned by {release}")
            else:
                facts[req.name] = PackageFact(req.name, True, None, f"required by {release} ({req.specifier or 'any'})")
    for name, version in sorted((installed or {}).items()):
        facts[name] = PackageFact(name, version is not None, version, "installed")
    for name, version in sorted((overrides or {}).items()):
        facts[name] = PackageFact(name, version is not None, version, "--package")
    return Packages(dict(sorted(facts.items())))


def for_revision(tree: SourceTree, cache_dir: Any, *, offline: bool, pairs: tuple[str, ...] | list[str] = (),
                 vendor: str = "nvidia") -> tuple[Packages, str | None]:
    """The packages of a run of `tree` (a SourceTree): its release's pins, in installed mode the
    environment's versions, then `--package`; and why the pins are not known, if they are not."""
    from flagscan.source.distmeta import installed_versions
    from flagscan.source.release_meta import release_meta

    overrides = parse_overrides(pairs)
    meta, why = release_meta(tree, cache_dir, offline=offline)
    installed = None
    if tree.provider == "installed":
        names = [r.name for r in meta.requires] if meta is not None else []
        names += [d for ds in load("packages").get("modules", {}).values() for d in ds]
        installed = installed_versions(sorted(set(names)))
    return _with_config_types(build(meta, overrides=overrides, installed=installed, vendor=vendor), cache_dir,
                              offline=offline), why


def _with_config_types(packages: Packages, cache_dir: Any, *, offline: bool) -> Packages:
    """The packages with the AutoConfig registry of their transformers version, where that
    version is known and its wheel can be read (rules/model_types.toml)."""
    from dataclasses import replace
    from pathlib import Path

    from flagscan.source.hf_config_types import config_types

    fact = packages.dist(load("model_types")["registry"]["distribution"])
    if fact is None or not fact.present or fact.version is None or cache_dir is None:
        return packages
    types, _why = config_types(fact.version, Path(cache_dir), offline=offline)
    return replace(packages, config_types=types) if types is not None else packages


__all__ = ["ABSENT", "PackageFact", "PackageSpecError", "Packages", "build", "for_revision", "parse_overrides"]
