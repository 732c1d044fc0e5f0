"""evaluate: three-valued abstract execution of SGLang's resolution for a GPU, model and command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.resolution.results import Resolution
from flagscan.evaluate.world import ModelError, ModelFacts, World, load_model
from flagscan.extract.errors import ExtractionError
from flagscan.facts.flags import Inventory, UnknownValue
from flagscan.hardware import GpuProfile
from flagscan.ruledata import model_path_of
from flagscan.strict import GaveUp, give_up

if TYPE_CHECKING:
    from flagscan.evaluate.packages import Packages


@dataclass(frozen=True, slots=True)
class Scenario:
    """What a prediction is made for."""

    gpu: GpuProfile
    env: dict[str, str]
    model: ModelFacts | None
    # the run's packages; None: rules/world.toml's assumption
    packages: Packages | None = None


def user_values(values: dict[str, Any]) -> dict[str, Any]:
    """Parsed flag values (dest -> value) as the resolution sees them."""
    out: dict[str, Any] = {}
    for dest, value in values.items():
        value = getattr(value, "value", value)
        out[dest] = Unknown(value.text, {"env"}) if isinstance(value, UnknownValue) else value
    return out


def predict(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any],
            scenario: Scenario) -> Resolution:
    from flagscan.evaluate.cachekey import scenario_key, shared

    given = user_values(values)
    key = scenario_key(root, given, scenario)
    _await_background(key)
    return shared("resolution", key, lambda: _predict(root, cache_dir, inventory, given, scenario, key))


# resolution key -> the forked child computing it (predict_in_background)
_BACKGROUND: dict[str, int] = {}


def predict_in_background(root: Path, cache_dir: Path | None, inventory: Inventory, values: dict[str, Any],
                          scenario: Scenario) -> bool:
    """Begin a resolution that is not cached in a forked child, which writes the cache record
    `predict` then reads (a cold lint computes the startup phase meanwhile, on the other core).
    False when it is cached, there is no cache, or no second core or fork to use."""
    import os

    from flagscan.evaluate.cachekey import scenario_key

    if cache_dir is None or not can_fork():
        return False
    given = user_values(values)
    key = scenario_key(root, given, scenario)
    if key in _BACKGROUND or _record(cache_dir, key).is_file():
        return False
    pid = os.fork()
    if pid == 0:  # the child: computes and stores, says nothing (the parent reports any failure itself)
        code = 1
        try:
            from flagscan.extract.cache import no_collector

            no_collector()
            from flagscan.progress import set_quiet

            set_quiet(True)
            _predict(root, cache_dir, inventory, given, scenario, key)
            code = 0
        finally:
            os._exit(code)
    _BACKGROUND[key] = pid
    return True


def _await_background(key: str) -> None:
    """Wait for the child computing this resolution, if one was begun (its record is then read;
    if it failed, predict computes the resolution itself and reports what stopped it)."""
    await_child(_BACKGROUND, key)


def await_child(children: dict[str, int], key: str) -> None:
    """Wait for the forked child `children` holds under `key`, if any (and forget it)."""
    import os

    pid = children.pop(key, None)
    if pid is not None:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass  # already reaped


def can_fork() -> bool:
    """Whether work can go to a forked child beside this process: a second core, and fork."""
    import multiprocessing
    import os

    return (os.cpu_count() or 1) >= 2 and "fork" in multiprocessing.get_all_start_methods()


def _record(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / "facts" / "resolution" / f"{key}.pickle"


def _predict(root: Path, cache_dir: Path | None, inventory: Inventory, given: dict[str, Any], scenario: Scenario,
             key: str) -> Resolution:
    record = _record(cache_dir, key) if cache_dir is not None else None
    hit = _cached(record)
    if hit is not None:
        return hit
    from flagscan.extract.cache import cold_work_ahead

    cold_work_ahead()  # a cold run: what it will need later can begin beside this
    from flagscan.evaluate.resolution.resolve import resolve  # the interpreter: only when nothing is cached
    from flagscan.extract.irstore import ModuleStore

    model_path = model_path_of(given)
    world = World(scenario.gpu, dict(scenario.env), scenario.model, model_path, dists=scenario.packages)
    try:
        resolution = resolve(ModuleStore(root, cache_dir), inventory, given, world)
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # A defect in flagscan while following the code: said, never an empty answer.
        note = give_up(f"{type(exc).__name__}: {exc}", "SGLang's resolution could not be followed")
        raise ResolutionError(f"{note}; no setting can be predicted") from exc
    resolution.packages = dict(sorted(world.package_uses.items()))
    if not resolution.settings:
        why = "; ".join(resolution.notes) or "it produced no setting"
        raise ResolutionError(f"SGLang's resolution could not be followed ({why}); no setting can be predicted")
    if record is not None:
        _store(record, resolution)
    return resolution


def keep_resolution(root: Path, cache_dir: Path, given: dict[str, Any], scenario: Scenario, compute: Callable[[], Resolution]
                    ) -> None:
    """Store a resolution computed from another interpreter's run of the same entry (the
    startup phase's, flagscan/evaluate/startup/predict.py) where `predict` reads it, unless
    it is cached already. One it could not follow, or that came out empty, is not kept:
    `predict` then computes it itself and says what stopped it."""
    from flagscan.evaluate.cachekey import scenario_key

    record = _record(cache_dir, scenario_key(root, given, scenario))
    if record.is_file():
        return
    try:
        resolution = compute()
    except (GaveUp, RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return   # said by predict's own run, where it stops the same way
    if resolution.settings:
        _store(record, resolution)


def _cached(path: Path | None) -> Resolution | None:
    """A resolution this cache holds for the same key (flagscan's own pickle: same engine, same inputs)."""
    import pickle

    if path is None or not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            value = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError):
        return None  # written by another flagscan version or cut short: computed again
    return value if isinstance(value, Resolution) else None


def _store(path: Path, resolution: Resolution) -> None:
    import os
    import pickle
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(resolution, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        # a value pickle cannot hold: the prediction is simply not cached
        try:
            os.unlink(tmp)
        except OSError:
            pass


class ResolutionError(ExtractionError):
    """The resolution produced no settings: the commands say so in one line and exit 2
    (an ExtractionError: SGLang's source could not be read as a resolution)."""


__all__ = ["ModelError", "ModelFacts", "Resolution", "ResolutionError", "Scenario", "load_model", "predict"]
