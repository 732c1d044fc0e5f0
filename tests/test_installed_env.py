"""source/extract: `--sglang installed` in a real environment, SGLang beside its own dependencies.

SGLang is served in place from a site-packages that also holds msgspec, pydantic,
PyYAML, transformers and a torch: those are outside the analysed tree (their meaning
is rule data), so the settings must be those of the same release fetched from PyPI,
whose tree holds only `sglang/`. Wheels are downloaded once into $FLAGSCAN_TEST_CACHE
and unpacked as pip's installer would lay them out (a wheel is a zip whose
.dist-info is what importlib.metadata reads).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "groundtruth" / "models" / "llama-3-8b"
COMMAND = ["--model-path", str(MODEL), "--tp", "1"]
# Dependencies SGLang's resolution imports that ship as small wheels; transformers
# (13.5 MB) takes its version from the release's own Requires-Dist pin. torch
# (~900 MB) is a stub package written here instead.
DEPENDENCIES = {"msgspec": "0.23.0", "pydantic": "2.11.7", "pydantic-core": "2.33.2",
                "PyYAML": "6.0.2", "transformers": None}
TORCH_STUB = {
    "torch/__init__.py": "from torch import cuda\nfrom torch import version\n",
    "torch/cuda.py": "def is_available():\n    return False\n\n"
                     "def get_device_capability(device=None):\n    return (7, 0)\n",
    "torch/version.py": "cuda = None\nhip = None\n",
    # installed as pip would leave it: importlib.metadata sees a torch distribution
    "torch-2.9.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.1\n",
    "torch-2.9.1.dist-info/RECORD": "",
}


def _download(spec: str, into: Path) -> Path:
    """The wheel of `spec` for this interpreter, downloaded once into `into`."""
    name = re.split(r"[=<>]", spec)[0]
    pattern = re.compile(rf"^{re.escape(name.replace('-', '_'))}-", re.IGNORECASE)
    version = spec.partition("==")[2]
    found = [p for p in into.glob("*.whl") if pattern.match(p.name) and (not version or f"-{version}-" in p.name)]
    if found:
        return sorted(found)[0]
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into) as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "-q", "-d", tmp, spec], check=True, capture_output=True)
        (wheel,) = Path(tmp).glob("*.whl")
        target = into / wheel.name
        os.replace(wheel, target)   # atomic: a concurrent run sees a whole wheel or none
    return target


def _pin(wheel: Path, name: str) -> str | None:
    """The exact version the SGLang wheel requires of `name` (unconditional `==` pins only)."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    for line in text.splitlines():
        found = re.fullmatch(rf"Requires-Dist: {re.escape(name)}==([\w.]+)", line.strip(), re.IGNORECASE)
        if found:
            return found.group(1)
    return None


def _environment(release: str, cache: Path, site: Path) -> list[str]:
    wheels = cache / "wheels"
    sglang = _download(f"sglang=={release}", wheels)
    installed = [sglang]
    for name, version in DEPENDENCIES.items():
        version = version or _pin(sglang, name)
        installed.append(_download(f"{name}=={version}" if version else name, wheels))
    for wheel in installed:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
    for rel, text in TORCH_STUB.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    return [w.name for w in installed]


def _requirements(wheel: Path) -> list[str]:
    """The distribution names the SGLang wheel requires (every Requires-Dist line)."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    names = {re.split(r"[\s<>=!~;\[(]", line.split(":", 1)[1].strip())[0]
             for line in text.splitlines() if line.startswith("Requires-Dist:")}
    return sorted(n for n in names if n)


def _as_installed(site: Path, wheel: Path) -> list[str]:
    """--package options saying what the installed analysis's environment (`site` first on
    the path of this interpreter) holds of the wheel's requirements: the PyPI analysis then
    assumes the same packages (here most of SGLang's GPU packages are absent, which changes
    what SGLang picks, e.g. its sampler)."""
    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    listing = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m, json; "
         "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}))"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(site)})
    present = {norm(name): version for name, version in json.loads(listing.stdout).items()}
    # and the distributions rules/packages.toml names for the modules SGLang imports without
    # requiring them (deep_gemm, deep_ep...): the installed analysis knows they are absent
    import tomllib
    modules = tomllib.loads((ROOT / "rules" / "packages.toml").read_text())["modules"]
    names = sorted(set(_requirements(wheel)) | {d for dists in modules.values() for d in dists})
    out = []
    for name in names:
        version = present.get(norm(name))
        out += ["--package", f"{name}={version or 'absent'}"]
    return out


def _settings(revision: str, cache: Path, pythonpath: Path | None, extra: list[str] = ()) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    argv = [sys.executable, "-m", "flagscan", "--sglang", revision, "--cache-dir", str(cache),
            "resolve", "--gpu", "h200", "--format", "json", *extra, "--", *COMMAND]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


@pytest.mark.real
@pytest.mark.parametrize("release", ["0.5.10", "0.5.23"])
def test_installed_beside_dependencies_matches_pypi(release: str, real_cache_dir: Path,
                                                     tmp_path: Path) -> None:
    start = time.monotonic()
    site = tmp_path / "site-packages"
    wheels = _environment(release, real_cache_dir, site)
    assert (site / "msgspec" / "__init__.py").is_file() and (site / "pydantic" / "__init__.py").is_file()
    setup = time.monotonic() - start
    start = time.monotonic()
    installed = _settings("installed", real_cache_dir, site)
    sglang_wheel = next((real_cache_dir / "wheels").glob(f"sglang-{release}-*.whl"))
    pypi = _settings(release, real_cache_dir, None, _as_installed(site, sglang_wheel))
    print(f"\nsglang {release} beside {len(wheels) - 1} wheels + torch stub: "
          f"environment {setup:.1f}s, two analyses {time.monotonic() - start:.1f}s")
    assert installed["sglang"]["provider"] == "installed" and installed["sglang"]["version"] == release
    assert len(pypi["settings"]) > 100
    assert installed["settings"] == pypi["settings"]
    # with the settings each raise's path read ("reads", report's evidence for REJECTED)
    assert installed["rejections"] == pypi["rejections"]
