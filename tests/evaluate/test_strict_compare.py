"""Orderings Python refuses (`None < 4096`) are a TypeError the analysed program raises, as SGLang
would see it (utils/common.py `assert gpu_id < num_gpus` with a device id not set), under
FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp); with one side unknown, unknown."""

from __future__ import annotations

import pytest

from flagscan.evaluate.interp import Dead
from tests.evaluate.helpers import options, run


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")


def test_none_ordered_against_an_int_raises_type_error_in_the_program(tmp_path):
    value, interp = run(tmp_path, '''
def below(gpu_id, num_gpus):
    try:
        return gpu_id < num_gpus
    except TypeError:
        return "TypeError"

def main():
    return below(None, 4), below(2, 4)
''')
    assert value == ("TypeError", True)
    assert interp.stops == []


def test_an_uncaught_ordering_error_ends_the_path_as_a_raise(tmp_path):
    value, interp = run(tmp_path, '''
def main():
    gpu_id = None
    assert gpu_id < 8
    return "went on"
''')
    assert value is Dead  # every path raised
    assert interp.stops == []


def test_an_ordering_with_an_operand_that_may_be_none_is_unknown(tmp_path):
    value, interp = run(tmp_path, '''
import os

def main():
    gpu_id = None if os.environ.get("NO_GPU") else 3
    return gpu_id < 4
''', env_open=True)
    assert options(value) is None
    assert interp.stops == []
