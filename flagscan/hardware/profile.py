"""hardware: the GPU a prediction is made for."""

from __future__ import annotations

import difflib
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from flagscan.ruledata import load


class HardwareError(Exception):
    """A GPU spec that names nothing known; one line, the CLI exits 2."""


@dataclass(frozen=True, slots=True)
class GpuProfile:
    vendor: str                  # nvidia | amd
    name: str | None             # what torch.cuda.get_device_name() reports
    capability: tuple[int, int]  # what torch.cuda.get_device_capability() reports
    memory_mib: int | None       # total memory per GPU as nvidia-smi reports it
    count: int = 1
    cuda: str | None = None      # torch.version.cuda (None on ROCm)
    hip: str | None = None       # torch.version.hip (None on CUDA)
    arch: str | None = None      # gcnArchName on AMD
    table_entry: str | None = None
    source: str = "table"        # table | capability | detected

    @property
    def sm(self) -> str:
        return f"sm{self.capability[0]}{self.capability[1]}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["capability"] = f"{self.capability[0]}.{self.capability[1]}"
        return data


def table() -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = load("gpus")["gpu"]
    return entries


def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for key, entry in table().items():
        out[key] = key
        for alias in entry.get("aliases", []):
            out[alias] = key
    for key, entry in table().items():
        # the name nvidia-smi / torch print ("NVIDIA H100 80GB HBM3"), pasted as it is shown
        out.setdefault(" ".join(entry["name"].lower().split()), key)
    return out


def from_entry(key: str) -> GpuProfile:
    entry = table()[key]
    defaults = load("gpus")["defaults"]
    vendor = entry["vendor"]
    return GpuProfile(
        vendor=vendor,
        name=entry["name"],
        capability=tuple(entry["capability"]),
        memory_mib=entry.get("memory_mib"),
        count=defaults.get("count", 1),
        cuda=defaults["cuda"] if vendor == "nvidia" else None,
        hip=defaults["hip"] if vendor == "amd" else None,
        arch=entry.get("arch"),
        table_entry=key,
        source="table",
    )


def parse_memory(text: str) -> int:
    """`143771MiB`, `140GiB`, `96GB`, `80G`; a bare number is GiB. Returns MiB."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text or "")
    if not m:
        raise HardwareError(f"cannot read GPU memory {text!r} (use e.g. 143771MiB, 140GiB or 96GB)")
    value, unit = float(m.group(1)), m.group(2).lower()
    factors = {"": 1024, "g": 1024, "gib": 1024, "gb": 1e9 / 2**20, "m": 1, "mib": 1, "mb": 1e6 / 2**20,
               "t": 2**20, "tib": 2**20, "tb": 1e12 / 2**20}
    if unit not in factors:
        raise HardwareError(f"unknown memory unit {m.group(2)!r} in {text!r} (MiB, GiB, GB, TiB)")
    mib = round(value * factors[unit])
    if mib < 1:
        raise HardwareError(f"GPU memory must be more than 0, not {text!r}")
    return mib


def profile_from_spec(spec: str, *, count: int | None = None, memory: str | None = None,
                      name: str | None = None, cuda: str | None = None) -> GpuProfile:
    """`h200`, `sm90`, `9.0`, `12.0`; then the overrides of --gpu-count/-memory/-name/--cuda."""
    key = " ".join(spec.strip().lower().split())
    aliases = _aliases()
    if key in aliases:
        profile = from_entry(aliases[key])
    else:
        from_capability = _from_capability(key)
        if from_capability is None:
            close = difflib.get_close_matches(key, list(aliases), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise HardwareError(f"unknown GPU {spec!r} (a name from the GPU table or as nvidia-smi prints it, smNN, or a compute "
                                f"capability such as 9.0){hint}")
        profile = from_capability
    return with_overrides(profile, count=count, memory=memory, name=name, cuda=cuda)


def with_overrides(profile: GpuProfile, *, count: int | None = None, memory: str | None = None,
                   name: str | None = None, cuda: str | None = None) -> GpuProfile:
    """--gpu-count / --gpu-memory / --gpu-name / --cuda over a table, capability or detected profile."""
    if count is not None:
        if count < 1:
            raise HardwareError(f"--gpu-count must be at least 1, not {count}")
        profile = replace(profile, count=count)
    if memory is not None:
        profile = replace(profile, memory_mib=parse_memory(memory))
    if name is not None:
        profile = replace(profile, name=name)
    if cuda is not None:
        if not re.fullmatch(r"\d+\.\d+", cuda):
            raise HardwareError(f"--cuda wants a version such as 12.9, not {cuda!r}")
        profile = replace(profile, cuda=cuda if profile.vendor == "nvidia" else None)
    return profile


def _from_capability(key: str) -> GpuProfile | None:
    m = re.fullmatch(r"sm_?(\d{2,3})", key)
    if m:
        digits = m.group(1)
        major, minor = int(digits[:-1]), int(digits[-1])
    else:
        m = re.fullmatch(r"(\d{1,2})\.(\d)", key)
        if not m:
            return None
        major, minor = int(m.group(1)), int(m.group(2))
    if not 3 <= major <= 20:
        return None
    defaults = load("gpus")["defaults"]
    # A bare capability says nothing of the name or the memory: both stay unknown
    # (settings derived from them come out unknown) unless --gpu-name/--gpu-memory.
    return GpuProfile(
        vendor="nvidia",
        name=None,
        capability=(major, minor),
        memory_mib=None,
        count=defaults.get("count", 1),
        cuda=defaults["cuda"],
        table_entry=None,
        source="capability",
    )
