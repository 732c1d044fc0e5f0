"""hardware: GPU profiles from the GPU table in rules/gpus.toml, a compute capability, or detection."""

from flagscan.hardware.profile import GpuProfile, HardwareError, parse_memory, profile_from_spec

__all__ = ["GpuProfile", "HardwareError", "parse_memory", "profile_from_spec"]
