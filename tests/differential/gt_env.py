"""Environment set-up shared by the ground-truth scripts.

This module runs INSIDE the throwaway ground-truth virtualenv (see README.md),
never inside flagscan's own test environment. It does two things before any
SGLang module is imported:

1. installs an import hook that turns a fixed list of heavy, GPU-only packages
   (kernels, compilers, inference engines) into inert stub modules, so that
   SGLang's own ``server_args`` can be imported on a CPU-only machine;
2. optionally simulates a GPU by patching the torch-level hardware queries
   (``torch.cuda.is_available``, ``get_device_capability``,
   ``get_device_name``, ``get_device_properties``, ``device_count``,
   ``mem_get_info``, ``torch.version.cuda``/``hip``) and the
   ``nvidia-smi``/``rocminfo`` subprocess calls.

Everything that was stubbed is recorded in ``STUB_LOG`` so the JSON outputs can
say exactly what was simulated.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

# Top-level packages replaced by stubs (rules/stubs.json, shared with
# flagscan/verify/probe.py). They are compiled GPU kernels, compilers or other
# inference engines: importing them is either impossible on a CPU-only machine
# or irrelevant to argument registration and resolution. A stubbed package
# "exists" (importlib.util.find_spec finds it), as it would on a real GPU
# deployment where SGLang's hard dependencies are installed.
_STUBS = json.loads((Path(__file__).resolve().parents[2] / "rules" / "stubs.json").read_text(encoding="utf-8"))
STUB_PACKAGES = tuple(_STUBS["packages"]) + tuple(_STUBS["ground_truth"]["also"])

# Packages stubbed only when SGLang's own code imports them. Other libraries
# (transformers probes torchvision/torchaudio/torchcodec with find_spec and
# package metadata) see them as absent, as on a CPU-only install.
SOFT_STUB_PACKAGES = tuple(_STUBS["ground_truth"]["soft"])

STUB_LOG: list[str] = []
_STUBBED_MODULES: set[str] = set()


class _Target:
    """What ``triton.runtime.driver.active.get_current_target()`` returns."""

    def __init__(self, backend: str, arch: Any, warp_size: int) -> None:
        self.backend, self.arch, self.warp_size = backend, arch, warp_size


def _current_target() -> _Target:
    profile = SIMULATED.get("profile")
    if not profile:
        # Real triton without a GPU raises here; SGLang falls back to "cpu".
        raise RuntimeError("0 active drivers ([]). There should only be one.")
    if profile.get("vendor") == "amd":
        return _Target("hip", profile.get("gcn_arch", "gfx942"), 64)
    cap = profile["capability"]
    return _Target("cuda", cap[0] * 10 + cap[1], 32)


# Stub attributes with a real value: full dotted path -> value.
OVERRIDES: dict[str, Any] = {
    "triton.runtime.driver.active.get_current_target": _current_target,
}
SIMULATED: dict[str, Any] = {}


class _StubMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        path = f"{cls.__qualname__}.{name}"
        if path in OVERRIDES:
            return OVERRIDES[path]
        return _make_stub(path)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # Used as a decorator (``@triton.jit``): return the decorated function.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return type.__call__(cls)

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __iter__(cls):
        return iter(())

    def __bool__(cls) -> bool:
        return False

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__


class _Stub(metaclass=_StubMeta):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make_stub(name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _Stub()

    def __iter__(self):
        return iter(())

    def __bool__(self) -> bool:
        return False


def _make_stub(name: str) -> type:
    return _StubMeta(name.rsplit(".", 1)[-1], (_Stub,), {"__qualname__": name})


class _StubModule(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__ = []  # a package, so submodules import
        self.__version__ = "0.0.0+stub"
        self.__file__ = f"<stub {name}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        path = f"{self.__name__}.{name}"
        if path in OVERRIDES:
            return OVERRIDES[path]
        value = _make_stub(path)
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ not in _STUBBED_MODULES:
            _STUBBED_MODULES.add(module.__name__)


def _imported_by_sglang() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" not in name and not name.startswith("<frozen") and name != __file__:
            return "/sglang/" in name
        frame = frame.f_back
    return False


class _StubFinder(importlib.abc.MetaPathFinder):
    def __init__(self, packages: tuple[str, ...], soft: tuple[str, ...]) -> None:
        self.packages = set(packages)
        self.soft = set(soft)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        top = fullname.split(".", 1)[0]
        if top in self.packages or (
            top in self.soft and (fullname in sys.modules or top in sys.modules or _imported_by_sglang())
        ):
            return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
        return None


_installed = False


def install_import_stubs(extra: tuple[str, ...] = ()) -> None:
    global _installed
    if _installed:
        return
    _installed = True
    packages = tuple(STUB_PACKAGES) + tuple(extra)
    _preload_torch_compiler()
    _fake_kernels_of_stubs_register_nothing(packages)
    sys.meta_path.insert(0, _StubFinder(packages, SOFT_STUB_PACKAGES))
    STUB_LOG.append("import stubs (inert modules): " + ", ".join(sorted(packages)))
    STUB_LOG.append(
        "import stubs when imported by sglang code only (absent for transformers' probes): "
        + ", ".join(SOFT_STUB_PACKAGES)
    )


def _preload_torch_compiler() -> None:
    """Import torch's compiler stack while triton is still absent.

    SGLang decorates functions with ``torch.compile`` at import time; that
    imports ``torch._inductor``, which would find the triton stub and fail its
    own asserts. Loaded first, torch settles on "no triton" (its probes are
    cached), exactly as on a CPU-only install, and SGLang still gets the stub.
    """
    try:
        import torch
        import torch._dynamo
        import torch._inductor.compile_fx  # noqa: F401
        from torch.utils._triton import has_triton, has_triton_package

        has_triton_package()
        has_triton()
    except Exception as exc:  # pragma: no cover - best effort
        STUB_LOG.append(f"torch compiler preload failed: {exc!r}")
        return
    STUB_LOG.append("torch._dynamo/torch._inductor imported before the stubs (torch sees no triton)")


def _fake_kernels_of_stubs_register_nothing(packages: tuple[str, ...]) -> None:
    """``torch.library.register_fake("sgl_kernel::op")`` for an operator of a stubbed kernel package.

    The compiled library never loads, so its operators do not exist and torch refuses a
    fake implementation for them (0.5.8's fp8_kernel.py registers one at import time,
    since the stub's import of the kernel succeeds). Such a registration is left out,
    as it changes nothing the resolution reads; every other registration goes to torch.
    """
    try:
        import torch.library
    except Exception as exc:  # pragma: no cover - best effort
        STUB_LOG.append(f"torch.library not patched: {exc!r}")
        return
    real = torch.library.register_fake
    roots = {p.split(".")[0] for p in packages}

    def register_fake(op: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(op, str) and op.split("::")[0] in roots:
            return (lambda fn: fn) if not args or not callable(args[0]) else args[0]
        return real(op, *args, **kwargs)

    torch.library.register_fake = register_fake
    STUB_LOG.append("torch.library.register_fake: operators of stubbed packages register nothing")


def stubbed_modules() -> list[str]:
    return sorted(_STUBBED_MODULES)


# ---------------------------------------------------------------------------
# Simulated hardware
# ---------------------------------------------------------------------------

class _Props:
    def __init__(self, profile: dict[str, Any]) -> None:
        self.name = profile["name"]
        cap = profile.get("capability") or [0, 0]
        self.major, self.minor = int(cap[0]), int(cap[1])
        self.total_memory = int(profile["memory_mib"]) * 1024 * 1024
        self.multi_processor_count = int(profile.get("sm_count", 132))
        self.gcnArchName = profile.get("gcn_arch", "")
        self.L2_cache_size = 50 * 1024 * 1024
        self.warp_size = 64 if profile.get("vendor") == "amd" else 32
        self.is_integrated = False
        self.uuid = "GPU-00000000-0000-0000-0000-000000000000"

    def __repr__(self) -> str:
        return f"_Props(name={self.name!r}, major={self.major}, minor={self.minor})"


def set_gpu_count(count: int) -> None:
    """Change the simulated device count (torch.cuda.device_count, nvidia-smi rows)."""
    SIMULATED["count"] = int(count)


def simulate_gpu(profile: dict[str, Any] | None) -> None:
    """Patch torch-level hardware queries to describe `profile`.

    `profile` = {"vendor": "nvidia"|"amd", "capability": [major, minor],
    "name": str, "memory_mib": int, "count": int, "cuda": "12.9",
    "hip": "6.3" (amd), "gcn_arch": "gfx942" (amd)}. None: leave the CPU-only
    torch as it is (no GPU).
    """
    import torch

    SIMULATED["profile"] = profile
    if profile is None:
        STUB_LOG.append("hardware: none simulated (CPU-only torch as installed)")
        return

    SIMULATED["count"] = int(profile.get("count", 1))
    props = _Props(profile)
    cap = (props.major, props.minor)
    mem_bytes = props.total_memory
    amd = profile.get("vendor") == "amd"

    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: SIMULATED["count"]
    torch.cuda.get_device_capability = lambda device=None: cap
    torch.cuda.get_device_name = lambda device=None: props.name
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.current_device = lambda: 0
    torch.cuda.mem_get_info = lambda device=None: (mem_bytes, mem_bytes)
    torch.cuda.is_initialized = lambda: True
    torch.cuda.set_device = lambda device: None
    torch.cuda.get_arch_list = lambda: (
        [profile.get("gcn_arch", "gfx942")] if amd else [f"sm_{cap[0]}{cap[1]}"]
    )
    torch.cuda.is_bf16_supported = lambda *a, **k: True
    torch.version.cuda = None if amd else str(profile.get("cuda", "12.9"))
    torch.version.hip = str(profile.get("hip", "6.3.42131")) if amd else None
    try:
        torch.backends.cudnn.version = lambda: 91000
    except Exception:
        pass

    real_run = subprocess.run
    real_check_output = subprocess.check_output
    mib = int(profile["memory_mib"])

    def _fake_output(cmd: Any) -> str | None:
        count = SIMULATED["count"]
        text = cmd if isinstance(cmd, str) else " ".join(map(str, cmd))
        if "nvidia-smi" in text:
            if amd:
                raise FileNotFoundError("nvidia-smi")
            if "memory.total" in text:
                return "\n".join([str(mib)] * count) + "\n"
            if "compute_cap" in text:
                return "\n".join([f"{cap[0]}.{cap[1]}"] * count) + "\n"
            if "name" in text:
                return "\n".join([props.name] * count) + "\n"
            if "topo" in text:
                return ""
            return ""
        if "rocminfo" in text or "rocm-smi" in text or "amd-smi" in text:
            if not amd:
                raise FileNotFoundError("rocminfo")
            # rocminfo reports pool sizes in KB; SGLang divides by 1024 -> MiB.
            return "\n".join([f"{mib * 1024}(0x0) KB"] * count) + "\n"
        return None

    def fake_run(cmd, *args, **kwargs):  # type: ignore[no-untyped-def]
        out = _fake_output(cmd)
        if out is None:
            return real_run(cmd, *args, **kwargs)
        text = kwargs.get("text") or kwargs.get("universal_newlines") or kwargs.get("encoding")
        data = out if text else out.encode()
        return subprocess.CompletedProcess(cmd, 0, data, "" if text else b"")

    def fake_check_output(cmd, *args, **kwargs):  # type: ignore[no-untyped-def]
        out = _fake_output(cmd)
        if out is None:
            return real_check_output(cmd, *args, **kwargs)
        text = kwargs.get("text") or kwargs.get("universal_newlines") or kwargs.get("encoding")
        return out if text else out.encode()

    STUB_LOG.append(
        "triton.runtime.driver.active.get_current_target() answers backend "
        + ("'hip'" if amd else "'cuda'")
    )
    subprocess.run = fake_run
    subprocess.check_output = fake_check_output
    STUB_LOG.append(
        "hardware: torch.cuda.{is_available,device_count,get_device_capability,"
        "get_device_name,get_device_properties,current_device,mem_get_info,"
        "get_arch_list}, torch.version.cuda/hip, and subprocess nvidia-smi/rocminfo "
        f"answer for {profile.get('name')} "
        f"(sm{cap[0]}{cap[1]}, {mib} MiB, "
        + (f"hip {torch.version.hip})" if amd else f"cuda {torch.version.cuda})")
    )
