"""A cold lint runs SGLang's resolution entry once (flagscan/evaluate/startup/predict.py
begin_startup): the startup interpreter's run gives the resolution `predict` reads, and a
forked child goes on with the startup entries. Both must be what each computation gives
on its own, from a cache that holds neither."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flagscan.evaluate import Scenario, load_model, predict
from flagscan.evaluate.startup.predict import _ENTRIES, begin_startup, predict_startup
from flagscan.extract import load_inventory
from flagscan.hardware import profile_from_spec
from flagscan.inputs import command_from_argv, parse_command
from flagscan.source import get_source
from tests.conftest import ROOT, TREES

LLAMA = str(ROOT / "tests/data/groundtruth/models/llama-3-8b")
COMMANDS = [
    ("rtx-pro-6000", ["--model-path", "m", "--attention-backend", "flashinfer"]),   # a certain startup crash
    ("rtx-pro-6000", ["--model-path", "m", "--attention-backend", "fa3"]),          # rejected while resolving
    ("h200", ["--model-path", "m", "--speculative-algorithm", "EAGLE"]),      # a possible serving failure
    ("h200", ["--model-path", "m", "--tp-size", "2"]),
]


def _inputs(cache: Path, gpu: str, argv: list[str]):
    tree = get_source(str(TREES / "lint"), cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    values = {d: v.value for d, v in parse_command(command_from_argv(argv), inventory).values.items()}
    return tree.root, inventory, values, Scenario(profile_from_spec(gpu), {}, load_model(LLAMA, None, "m"))


def _settings(resolution) -> dict:
    return {"settings": {d: s.to_json() for d, s in resolution.settings.items()},
            "rejections": [r.to_json() for r in resolution.rejections], "notes": resolution.notes,
            "env": {k: repr(v) for k, v in resolution.env.items()}, "packages": resolution.packages}


def _startup(result) -> dict:
    return {"rejections": [r.to_json() for r in result.rejections], "writes": sorted(result.writes),
            "completed": result.completed, "stopped": result.stopped, "serving": result.serving}


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
@pytest.mark.parametrize(("gpu", "argv"), COMMANDS)
def test_one_entry_run_gives_the_resolution_and_the_startup_phase_each_computes_alone(tmp_path, monkeypatch,
                                                                                        gpu, argv) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    root, inventory, values, scenario = _inputs(tmp_path / "once", gpu, argv)
    before = dict(_ENTRIES)
    assert begin_startup(root, tmp_path / "once", inventory, values, scenario)
    assert len(list((tmp_path / "once" / "facts" / "resolution").glob("*.pickle"))) == 1
    # begun already: not again
    assert not begin_startup(root, tmp_path / "once", inventory, values, scenario)
    (key,) = _ENTRIES.keys() - before.keys()
    assert os.waitpid(_ENTRIES.pop(key), 0)[1] == 0   # the child wrote the phase, then exited 0
    assert len(list((tmp_path / "once" / "facts" / "startup").glob("*.json"))) == 1
    kept, started = (predict(root, tmp_path / "once", inventory, values, scenario),
                     predict_startup(root, tmp_path / "once", inventory, values, scenario))
    assert len(list((tmp_path / "once" / "facts" / "startup").glob("*.json"))) == 1

    root2, inventory2, values2, scenario2 = _inputs(tmp_path / "alone", gpu, argv)
    alone = predict(root2, tmp_path / "alone", inventory2, values2, scenario2)
    started_alone = predict_startup(root2, tmp_path / "alone", inventory2, values2, scenario2)
    assert _settings(kept) == _settings(alone)
    assert _startup(started) == _startup(started_alone)
    assert kept.settings
    if "flashinfer" in argv:
        assert [(r.certain, r.phase) for r in started.rejections] == [(True, "startup")]
    # once the phase is cached, nothing is begun
    assert not begin_startup(root, tmp_path / "alone", inventory, values, scenario)


def test_without_a_cache_or_a_second_core_nothing_is_begun(tmp_path, monkeypatch) -> None:
    root, inventory, values, scenario = _inputs(tmp_path / "c", "h200", ["--model-path", "m"])
    assert not begin_startup(root, None, inventory, values, scenario)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert not begin_startup(root, tmp_path / "c", inventory, values, scenario)
    assert not (tmp_path / "c" / "facts" / "startup").exists()
