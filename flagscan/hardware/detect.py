"""hardware: the GPUs of this machine, read through NVML (pynvml), matched to the GPU table."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flagscan.hardware.profile import GpuProfile, HardwareError, table, with_overrides

_MIB = 1 << 20


@dataclass(frozen=True, slots=True)
class TableMatch:
    """The GPU-table entry for a detected device: `exact` by name, else the nearest."""

    key: str | None
    exact: bool
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.key, "exact": self.exact, "why": self.why}


@dataclass(frozen=True, slots=True)
class DetectedGpu:
    index: int                   # NVML's index (the order nvidia-smi lists)
    name: str                    # nvmlDeviceGetName, as torch.cuda.get_device_name() reports it
    capability: tuple[int, int]  # nvmlDeviceGetCudaComputeCapability
    memory_mib: int              # total memory in MiB, as nvidia-smi reports it
    uuid: str | None
    match: TableMatch

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name,
                "compute_capability": f"{self.capability[0]}.{self.capability[1]}",
                "memory_mib": self.memory_mib, "table_entry": self.match.key,
                "table_match": self.match.to_json(), "uuid": self.uuid}


@dataclass(frozen=True, slots=True)
class Detection:
    gpus: tuple[DetectedGpu, ...]
    driver: str | None       # nvmlSystemGetDriverVersion
    cuda_driver: str | None  # nvmlSystemGetCudaDriverVersion: the newest CUDA the driver runs
    visible: tuple[int, ...] | None  # CUDA_VISIBLE_DEVICES as NVML indices, when it names any

    def in_use(self) -> tuple[DetectedGpu, ...]:
        """The GPUs a process started here sees (CUDA_VISIBLE_DEVICES applied)."""
        if self.visible is None:
            return self.gpus
        by_index = {g.index: g for g in self.gpus}
        return tuple(by_index[i] for i in self.visible if i in by_index)

    def to_json(self) -> dict[str, Any]:
        return {"gpus": [g.to_json() for g in self.gpus], "driver": self.driver,
                "cuda_driver": self.cuda_driver, "count": len(self.gpus),
                "visible": list(self.visible) if self.visible is not None else None}


def _load_nvml() -> Any:
    try:
        with warnings.catch_warnings():
            # flagscan depends on nvidia-ml-py, which provides `pynvml`; an environment that also
            # has the deprecated `pynvml` package (a shim over it) warns on import.
            warnings.simplefilter("ignore", FutureWarning)
            import pynvml  # lazily: flagscan must import without it
    except ImportError as exc:
        raise HardwareError("cannot detect GPUs: pynvml is not installed (pip install nvidia-ml-py), "
                            "or give --gpu NAME") from exc
    return pynvml


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _cuda_version(code: int) -> str:
    """NVML's CUDA driver version integer (12080) as `12.8`."""
    return f"{code // 1000}.{(code % 1000) // 10}"


def detect(nvml: Any | None = None) -> Detection:
    """Every NVIDIA GPU NVML sees; HardwareError (one line) when NVML cannot answer."""
    nvml = nvml or _load_nvml()
    try:
        nvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, _DriverNotLoaded, _NoPermission ...
        raise HardwareError(f"cannot detect GPUs: NVML is unavailable ({_reason(exc)}); "
                            "no NVIDIA driver or GPU here? Give --gpu NAME instead") from exc
    try:
        driver = _optional(lambda: _text(nvml.nvmlSystemGetDriverVersion()))
        code = _optional(nvml.nvmlSystemGetCudaDriverVersion)
        if code is None and hasattr(nvml, "nvmlSystemGetCudaDriverVersion_v2"):
            code = _optional(nvml.nvmlSystemGetCudaDriverVersion_v2)
        gpus = []
        for index in range(int(nvml.nvmlDeviceGetCount())):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            name = _text(nvml.nvmlDeviceGetName(handle))
            major, minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
            memory = int(nvml.nvmlDeviceGetMemoryInfo(handle).total) // _MIB
            uuid = _optional(lambda: _text(nvml.nvmlDeviceGetUUID(handle)))  # noqa: B023 -- called at once, in this pass
            capability = (int(major), int(minor))
            gpus.append(DetectedGpu(index, name, capability, memory, uuid,
                                    match_table(name, capability, memory)))
    except HardwareError:
        raise
    except Exception as exc:
        raise HardwareError(f"cannot detect GPUs: NVML failed ({_reason(exc)})") from exc
    finally:
        _optional(nvml.nvmlShutdown)
    return Detection(tuple(gpus), driver, _cuda_version(int(code)) if code else None,
                     _visible(os.environ.get("CUDA_VISIBLE_DEVICES"), gpus))


def _optional(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception:
        return None


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _visible(spec: str | None, gpus: list[DetectedGpu]) -> tuple[int, ...] | None:
    """CUDA_VISIBLE_DEVICES as NVML indices (integers or GPU-UUIDs); None when unset or unreadable."""
    if spec is None:
        return None
    out: list[int] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            break
        if re.fullmatch(r"\d+", part):
            out.append(int(part))
            continue
        found = [g.index for g in gpus if g.uuid and g.uuid.startswith(part)]
        if len(found) != 1:
            break  # CUDA stops at the first entry it cannot read
        out.append(found[0])
    return tuple(out)


def match_table(name: str, capability: tuple[int, int], memory_mib: int | None) -> TableMatch:
    """The GPU-table entry named like the device; else the same capability with the nearest memory."""
    entries = {k: e for k, e in table().items() if e.get("vendor") == "nvidia"}
    wanted = _norm(name)
    for key, entry in entries.items():
        if _norm(entry["name"]) == wanted:
            return TableMatch(key, True, f"name {entry['name']!r}")
    same = [k for k, e in entries.items() if tuple(e["capability"]) == capability]
    if not same:
        return TableMatch(None, False, f"no entry has compute capability {capability[0]}.{capability[1]}")
    key = min(same, key=lambda k: (abs((entries[k].get("memory_mib") or 0) - (memory_mib or 0)), k))
    entry = entries[key]
    return TableMatch(key, False, f"nearest: no entry is named {name!r}; {key} ({entry['name']}) has the "
                                  f"same compute capability and the closest memory")


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().lower()


def detect_profile(*, count: int | None = None, memory: str | None = None, name: str | None = None,
                   cuda: str | None = None, nvml: Any | None = None) -> GpuProfile:
    """`--gpu auto`: the first GPU this process would use, with the --gpu-* overrides applied."""
    found = detect(nvml)
    usable = found.in_use()
    if not usable:
        where = " (CUDA_VISIBLE_DEVICES hides them all)" if found.gpus else ""
        raise HardwareError(f"--gpu auto: no NVIDIA GPU found{where}; give --gpu NAME instead")
    first = usable[0]
    profile = GpuProfile(
        vendor="nvidia",
        name=first.name,
        capability=first.capability,
        memory_mib=first.memory_mib,
        count=len(usable),
        cuda=found.cuda_driver or table_defaults_cuda(),
        table_entry=first.match.key,
        source="detected",
    )
    return with_overrides(profile, count=count, memory=memory, name=name, cuda=cuda)


def table_defaults_cuda() -> str:
    from flagscan.ruledata import load

    return str(load("gpus")["defaults"]["cuda"])
