"""evaluate: three-valued abstract execution of SGLang's resolution for a GPU, model and command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.evaluate.resolve import Resolution, resolve
from flagscan.evaluate.values import Unknown
from flagscan.evaluate.world import ModelError, ModelFacts, World, load_model
from flagscan.facts.flags import Inventory, UnknownValue
from flagscan.hardware import GpuProfile


@dataclass(frozen=True, slots=True)
class Scenario:
    """What a prediction is made for."""

    gpu: GpuProfile
    env: dict[str, str]
    model: ModelFacts | None


def user_values(values: dict[str, Any]) -> dict[str, Any]:
    """Parsed flag values (dest -> value) as the resolution sees them."""
    out: dict[str, Any] = {}
    for dest, value in values.items():
        value = getattr(value, "value", value)
        out[dest] = Unknown(value.text, {"env"}) if isinstance(value, UnknownValue) else value
    return out


def predict(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any],
            scenario: Scenario) -> Resolution:
    from flagscan.extract.irstore import ModuleStore

    given = user_values(values)
    model_path = given.get("model_path") if isinstance(given.get("model_path"), str) else None
    world = World(scenario.gpu, dict(scenario.env), scenario.model, model_path)
    try:
        return resolve(ModuleStore(root, cache_dir), inventory, given, world)
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # Code flagscan cannot follow degrades to "unknown", never to a crash.
        return Resolution({}, [], [f"resolution could not be followed ({type(exc).__name__}: {exc}); "
                                   "every setting is unknown"], False)


__all__ = ["ModelError", "ModelFacts", "Resolution", "Scenario", "load_model", "predict"]
