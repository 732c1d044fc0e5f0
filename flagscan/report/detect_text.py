"""report: detected GPUs as text and as the `detect` JSON contract."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flagscan.hardware.detect import Detection


def to_json(detection: Detection) -> dict[str, Any]:
    """`{"gpus": [{"index", "name", "compute_capability", "memory_mib", "table_entry"}], "driver", "cuda_driver"}`."""
    return detection.to_json()


def render(detection: Detection) -> str:
    lines = [f"driver {detection.driver or '?'}, CUDA {detection.cuda_driver or '?'} (driver), "
             f"{len(detection.gpus)} GPU{'s' if len(detection.gpus) != 1 else ''}"]
    if detection.visible is not None:
        lines.append(f"CUDA_VISIBLE_DEVICES selects {', '.join(map(str, detection.visible)) or 'none'}")
    for gpu in detection.gpus:
        cap = f"{gpu.capability[0]}.{gpu.capability[1]}"
        lines.append(f"  [{gpu.index}] {gpu.name}  sm{gpu.capability[0]}{gpu.capability[1]} (capability {cap}), "
                     f"{gpu.memory_mib} MiB ({gpu.memory_mib / 1024:.1f} GiB)")
        entry = gpu.match.key
        if entry is None:
            lines.append(f"      GPU table: no entry ({gpu.match.why})")
        elif gpu.match.exact:
            lines.append(f"      GPU table: {entry}")
        else:
            lines.append(f"      GPU table: {entry} ({gpu.match.why})")
    if detection.gpus:
        lines.append("use: --gpu auto  (or --gpu "
                     f"{detection.gpus[0].match.key or f'{detection.gpus[0].capability[0]}.{detection.gpus[0].capability[1]}'})")
    return "\n".join(lines)
