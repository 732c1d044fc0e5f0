"""A resolution is computed once per (engine, tree, command, scenario) and read back after."""

from __future__ import annotations

from pathlib import Path

from flagscan.evaluate import Scenario, predict
from flagscan.extract import load_inventory
from flagscan.hardware import profile_from_spec
from flagscan.inputs import command_from_argv, parse_command
from flagscan.source import get_source
from tests.conftest import TREES


def _predict(cache: Path, argv: list[str], gpu: str = "h200"):
    tree = get_source(str(TREES / "lint"), cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    values = {d: v.value for d, v in parse_command(command_from_argv(argv), inventory).values.items()}
    return predict(tree.root, cache, inventory, values, Scenario(profile_from_spec(gpu), {}, None))


def test_a_second_prediction_is_read_back_and_equal(tmp_path) -> None:
    first = _predict(tmp_path, ["--model-path", "m", "--speculative-algorithm", "EAGLE"])
    records = list((tmp_path / "facts" / "resolution").glob("*.pickle"))
    assert len(records) == 1
    second = _predict(tmp_path, ["--model-path", "m", "--speculative-algorithm", "EAGLE"])
    assert second is not first
    assert {d: s.to_json() for d, s in second.settings.items()} == {d: s.to_json() for d, s in first.settings.items()}
    assert [r.to_json() for r in second.rejections] == [r.to_json() for r in first.rejections]


def test_another_command_or_gpu_is_another_prediction(tmp_path) -> None:
    _predict(tmp_path, ["--model-path", "m"])
    _predict(tmp_path, ["--model-path", "m", "--tp-size", "2"])
    _predict(tmp_path, ["--model-path", "m"], gpu="rtx-pro-6000")
    assert len(list((tmp_path / "facts" / "resolution").glob("*.pickle"))) == 3


def test_a_damaged_record_is_computed_again(tmp_path) -> None:
    first = _predict(tmp_path, ["--model-path", "m"])
    (record,) = (tmp_path / "facts" / "resolution").glob("*.pickle")
    record.write_bytes(b"not a pickle")
    again = _predict(tmp_path, ["--model-path", "m"])
    assert again.settings.keys() == first.settings.keys()


def test_a_lenient_prediction_is_not_read_back_under_strict_mode(tmp_path, monkeypatch) -> None:
    # a result computed without FLAGSCAN_STRICT=1 may stand on give-ups strict mode must raise
    monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)
    _predict(tmp_path, ["--model-path", "m"])
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    _predict(tmp_path, ["--model-path", "m"])
    assert len(list((tmp_path / "facts" / "resolution").glob("*.pickle"))) == 2


def _inputs(cache: Path, argv: list[str]):
    tree = get_source(str(TREES / "lint"), cache_dir=cache)
    inventory, _ = load_inventory(tree.root, cache)
    values = {d: v.value for d, v in parse_command(command_from_argv(argv), inventory).values.items()}
    return tree.root, inventory, values, Scenario(profile_from_spec("h200"), {}, None)


def test_a_resolution_begun_in_a_forked_child_is_the_one_computed_in_place(tmp_path) -> None:
    import flagscan.evaluate as evaluate

    argv = ["--model-path", "m", "--speculative-algorithm", "EAGLE"]
    root, inventory, values, scenario = _inputs(tmp_path / "bg", argv)
    assert evaluate.predict_in_background(root, tmp_path / "bg", inventory, values, scenario)
    assert not evaluate.predict_in_background(root, tmp_path / "bg", inventory, values, scenario)  # once
    background = predict(root, tmp_path / "bg", inventory, values, scenario)   # waits, then reads its record
    assert not evaluate._BACKGROUND
    assert len(list((tmp_path / "bg" / "facts" / "resolution").glob("*.pickle"))) == 1
    in_place = _predict(tmp_path / "fg", argv)
    assert {d: s.to_json() for d, s in background.settings.items()} == {d: s.to_json() for d, s in in_place.settings.items()}
    # cached now: nothing more to begin
    assert not evaluate.predict_in_background(root, tmp_path / "bg", inventory, values, scenario)


def test_a_child_that_fails_leaves_the_resolution_to_the_parent(tmp_path, monkeypatch) -> None:
    import os

    import flagscan.evaluate as evaluate

    parent, real = os.getpid(), evaluate._predict

    def failing_in_the_child(*args, **kwargs):
        if os.getpid() != parent:
            raise RuntimeError("the child stops")
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate, "_predict", failing_in_the_child)
    root, inventory, values, scenario = _inputs(tmp_path, ["--model-path", "m"])
    assert evaluate.predict_in_background(root, tmp_path, inventory, values, scenario)
    got = predict(root, tmp_path, inventory, values, scenario)
    assert got.settings and "model_path" in got.settings
