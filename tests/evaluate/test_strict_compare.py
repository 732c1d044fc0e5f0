"""Orderings Python refuses (`None < 4096`) are a TypeError the analysed program may raise
(utils/common.py `assert gpu_id < num_gpus` with a device id the model holds as None), never a
certain one: the None may stand for a value set where flagscan does not follow. Under
FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp); with one side unknown, unknown."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import options, run

pytestmark = pytest.mark.usefixtures("strict")


def test_none_ordered_against_an_int_may_raise_type_error_in_the_program(tmp_path):
    value, interp = run(tmp_path, '''
def below(gpu_id, num_gpus):
    try:
        return gpu_id < num_gpus
    except TypeError:
        return "TypeError"

def main():
    return below(None, 4), below(2, 4)
''')
    first, second = value
    assert options(first) == {"TypeError", True, False}   # the except branch is reached
    assert second is True
    assert interp.stops == []


def test_the_raise_rests_on_an_assumption_of_the_run(tmp_path):
    # a certain TypeError would be a certain startup crash; the raise path assumes it instead
    value, interp = run(tmp_path, '''
def main():
    gpu_id = None
    assert gpu_id < 8
    return "went on"
''')
    assert value == "went on"
    assert interp.assumed_needs["NoneType < int raises TypeError"] == {"runtime:NoneType < int raises TypeError"}
    assert interp.stops == []


def test_arithmetic_python_refuses_is_a_type_error_on_an_assumed_path(tmp_path):
    # 0.5.18 pool_configurator.py: `assert page_size % 128 == 0` with a page size the model holds
    # as None (a runtime context publishes it): the program may raise TypeError, never certainly
    value, interp = run(tmp_path, '''
def rest(page_size):
    try:
        page_size % 128
        return "went on"
    except TypeError:
        return "TypeError"

def main():
    page_size = None
    assert page_size % 128 == 0
    return rest(None), rest(256)
''')
    first, second = value
    assert options(first) == {"TypeError", "went on"}   # both, neither certain
    assert second == "went on"
    assert interp.assumed_needs["NoneType % int raises TypeError"] == {"runtime:NoneType % int raises TypeError"}
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


def test_an_analysed_classs_operator_method_is_called(tmp_path):
    # model_loader/utils.py WeightsMapper.__or__, used at class level by nemotron_h_mtp.py:
    # `hf_to_sglang_mapper = NemotronHForCausalLM.hf_to_sglang_mapper | WeightsMapper(...)`
    value, interp = run(tmp_path, '''
class WeightsMapper:
    def __init__(self, prefixes):
        self.prefixes = dict(prefixes)

    def __or__(self, other):
        return WeightsMapper({**self.prefixes, **other.prefixes})

class Count:
    def __init__(self, n):
        self.n = n

    def __radd__(self, other):
        return Count(other + self.n)

class Base:
    mapper = WeightsMapper({"a.": "b."})

class MTP(Base):
    mapper = Base.mapper | WeightsMapper({"language_model.mtp.": "mtp."})

def main():
    return sorted(MTP.mapper.prefixes.items()), (1 + Count(2)).n
''')
    assert value == ([("a.", "b."), ("language_model.mtp.", "mtp.")], 3)
    assert interp.stops == []


def test_an_ordering_of_an_outside_value_the_world_does_not_give_is_unknown(tmp_path):
    # 0.5.20 custom_all_reduce_v2.py: `if torch.__version__ < "2.11.0":`
    value, interp = run(tmp_path, '''
import torch

def main():
    return torch.__version__ < "2.11.0"
''')
    assert options(value) is None
    assert interp.stops == []


def test_a_division_by_a_true_zero_raises_on_an_assumed_path(tmp_path):
    # 0.5.10 eplb/expert_location.py: `num_gpus_per_node = ep_size // nnodes` is 0 with EP 1 on
    # two nodes, and `moe_ep_rank // num_gpus_per_node` sits on a path SGLang never takes (the
    # same-GPU branch returns first) but the analysis may assume: ZeroDivisionError there is a
    # fact of the run, never certain, and no give-up
    value, interp = run(tmp_path, '''
def split(rank, per_node):
    try:
        rank // per_node
        return "went on"
    except ZeroDivisionError:
        return "ZeroDivisionError"

def main():
    per_node = 1 // 2
    return split(3, per_node), split(3, 2), 3 // 2
''')
    first, second, third = value
    assert options(first) == {"ZeroDivisionError", "went on"}   # both, neither certain
    assert second == "went on" and third == 1
    assert interp.assumed_needs["int // int raises ZeroDivisionError"] == {"runtime:int // int raises ZeroDivisionError"}
    assert interp.stops == []
