"""evaluate: the run's packages from a release's Requires-Dist, --package and the installed
environment, and what the interpreter's world answers from them."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.packages import PackageSpecError, build, parse_overrides
from flagscan.evaluate.world import World
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from flagscan.source.distmeta import parse_metadata, read_wheel

METADATA = """Metadata-Version: 2.4
Name: sglang
Version: 0.5.99
License:                                  Apache License
                                   Version 2.0, January 2004
        
           TERMS AND CONDITIONS FOR USE
Requires-Dist: aiohttp
Requires-Dist: flashinfer_python[cu13]==0.7.2
Requires-Dist: sglang-kernel==0.4.10
Requires-Dist: torch>=2.9
Requires-Dist: decord2; platform_machine == "aarch64"
Requires-Dist: mooncake-transfer-engine==0.3; extra == "all"
Requires-Dist: sgl-deep-gemm==0.2.3.post2

Requires-Dist: not-a-header==1.0
"""
ENTRY_POINTS = """[console_scripts]
sglang = sglang.cli.main:main
killall_sglang = sglang.cli.killall:main
"""


def test_requires_dist_pins_and_defaults() -> None:
    meta = parse_metadata(METADATA, ENTRY_POINTS, "test")
    reqs = {r.name: r for r in meta.requires}
    assert meta.version == "0.5.99"
    assert reqs["flashinfer-python"].pinned == "0.7.2" and reqs["flashinfer-python"].default
    assert reqs["torch"].pinned is None and reqs["torch"].default
    assert not reqs["decord2"].default and not reqs["mooncake-transfer-engine"].default
    assert "not-a-header" not in reqs   # the long description is not metadata
    assert meta.console_scripts == (("killall_sglang", "sglang.cli.killall:main"), ("sglang", "sglang.cli.main:main"))


def test_a_wheel_is_read(tmp_path: Path) -> None:
    wheel = tmp_path / "sglang-0.5.99-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("sglang-0.5.99.dist-info/METADATA", METADATA)
        zf.writestr("sglang-0.5.99.dist-info/entry_points.txt", ENTRY_POINTS)
    meta = read_wheel(wheel)
    assert meta.version == "0.5.99" and dict(meta.console_scripts)["sglang"] == "sglang.cli.main:main"


def test_authority_pins_then_installed_then_command() -> None:
    meta = parse_metadata(METADATA, "", "test")
    pins = build(meta)
    assert pins.dist("flashinfer_python").evidence == "package:flashinfer-python==0.7.2 (pinned by sglang 0.5.99)"
    assert pins.dist("torch").version is None and pins.dist("torch").present
    assert pins.dist("mooncake-transfer-engine") is None     # an extra: not known either way
    assert build(meta, vendor="amd").facts == {}             # the CUDA wheel's pins say nothing of ROCm
    installed = build(meta, installed={"flashinfer-python": None})
    assert installed.dist("flashinfer-python").present is False
    given = build(meta, installed={"flashinfer-python": None}, overrides=parse_overrides(["flashinfer-python=0.6.1"]))
    assert given.dist("flashinfer-python").evidence == "package:flashinfer-python==0.6.1 (--package)"


@pytest.mark.parametrize("bad", ["x", "x=", "=1.0", "x=1.0.broken!"])
def test_bad_overrides(bad: str) -> None:
    with pytest.raises(PackageSpecError):
        parse_overrides([bad])


def test_world_answers_find_spec_and_version_from_the_packages() -> None:
    meta = parse_metadata(METADATA, "", "test")
    world = World(profile_from_spec("h200"), {}, dists=build(meta, overrides={"amd-aiter": None}))
    assert world.module_present("flashinfer") is True
    assert world.module_present("sgl_kernel") is True
    assert world.module_present("aiter") is False
    assert world.package_version("flashinfer_python") == "0.7.2"
    unknown = world.module_present("some_plugin")
    assert isinstance(unknown, Unknown) and unknown.needs == frozenset({"package:some-plugin"})
    version = world.package_version("mooncake-transfer-engine")
    assert isinstance(version, Unknown) and version.needs == frozenset({"package:mooncake-transfer-engine"})
    assert world.package_uses["flashinfer-python"].startswith("package:flashinfer-python==0.7.2")


def test_every_module_entry_names_distributions() -> None:
    modules = load("packages")["modules"]
    assert modules and all(isinstance(v, list) and v and all(isinstance(d, str) for d in v) for v in modules.values())
    assert load("packages")["pins"]["vendors"]


IMPORTS = '''
try:
    import aiter
    HAVE_AITER = True
except ImportError:
    HAVE_AITER = False


def main():
    return HAVE_AITER
'''


@pytest.mark.parametrize("overrides, expected", [({"amd-aiter": None}, False), ({"amd-aiter": "0.1.5"}, True)])
def test_an_import_of_a_package_known_absent_raises_import_error(tmp_path: Path, overrides, expected) -> None:
    from flagscan.evaluate.interp.interpreter import Interpreter
    from flagscan.evaluate.interp.state import State
    from flagscan.extract.irstore import ModuleStore
    from tests.evaluate.helpers import write_tree

    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": IMPORTS})
    world = World(profile_from_spec("h200"), {}, dists=build(None, overrides=overrides))
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), world)
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert interp.call(interp.deref(module.globals["main"], state), [], {}, state, module) is expected
    assert world.package_uses["amd-aiter"].endswith("(--package)")


def test_installed_mode_reads_the_environment(monkeypatch) -> None:
    from types import SimpleNamespace

    from flagscan.evaluate import packages as pk
    from flagscan.source import distmeta, release_meta

    meta = parse_metadata(METADATA, "", "installed dist-info")
    monkeypatch.setattr(release_meta, "read_installed", lambda: meta)
    monkeypatch.setattr(distmeta, "installed_versions",
                        lambda names: {distmeta.normalise(n): ("0.6.0" if "flashinfer" in n else None) for n in names})
    tree = SimpleNamespace(provider="installed", revision="installed", version="0.5.99")
    packages, why = pk.for_revision(tree, None, offline=True)
    assert why is None
    assert packages.dist("flashinfer-python").evidence == "package:flashinfer-python==0.6.0 (installed)"
    assert packages.dist("sglang-kernel").present is False   # pinned, but not installed here
