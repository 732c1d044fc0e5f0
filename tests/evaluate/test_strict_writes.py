"""Writes through values the interpreter holds as one of several objects, or as outside code's
objects, followed under FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp).

The shapes are SGLang's: distributed/device_communicators/pynccl.py writes the bytes of a
`ncclUniqueId(ctypes.Structure)` made on either side of `if self.rank == 0`;
cuda_wrapper.py caches `ctypes.CDLL(so_file)` in a class-level dict under a path not known
and sets `restype` on its functions; models/transformers.py registers a function in
transformers' `ALL_ATTENTION_FUNCTIONS`.
"""

from __future__ import annotations

import pytest

from flagscan.evaluate.interp.values import Unknown
from tests.evaluate.helpers import options, run

pytestmark = pytest.mark.usefixtures("strict")


def test_a_ctypes_field_written_through_one_of_two_structures(tmp_path):
    value, interp = run(tmp_path, '''
import ctypes
import os

class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 128)]

class Communicator:
    def __init__(self, rank):
        self.rank = rank
        if self.rank == 0:
            self.unique_id = UniqueId()
        else:
            self.unique_id = UniqueId()
        for i, byte in enumerate([7, 8]):
            self.unique_id.internal[i] = byte
        self.available = True

def main():
    return Communicator(int(os.environ.get("RANK"))).available
''', env_open=True)
    assert value is True
    assert interp.stops == []


def test_a_library_cached_under_a_path_not_known_is_outside_code(tmp_path):
    # cuda_wrapper.py: the path comes from /proc/self/maps (not known, and no fact decides it)
    value, interp = run(tmp_path, '''
import ctypes

class Library:
    cache = {}

    def __init__(self, so_file):
        if so_file not in Library.cache:
            Library.cache[so_file] = ctypes.CDLL(so_file)
        self.lib = Library.cache[so_file]
        f = getattr(self.lib, "cudaSetDevice")
        f.restype = int
        f.argtypes = [int]
        self.ready = True

def main(so_file):
    return Library(so_file).ready
''', args=(Unknown("the path find_loaded_library finds"),))
    assert value is True
    assert interp.stops == []


def test_a_write_through_a_record_or_an_outside_object_may_change_the_record(tmp_path):
    # `o` is the record on one path, torch's module on the other: the record's x may be 2 now
    value, interp = run(tmp_path, '''
import os
import torch

class Box:
    pass

def main():
    box = Box()
    box.x = 1
    o = box if os.environ.get("K") else torch.backends
    o.x = 2
    return box.x
''', env_open=True)
    assert options(value) == {1, 2}
    assert interp.stops == []


def test_an_entry_written_into_an_outside_mapping_is_read_back(tmp_path):
    value, interp = run(tmp_path, '''
from transformers import ALL_ATTENTION_FUNCTIONS

def sglang_attention():
    return 1

ALL_ATTENTION_FUNCTIONS["sglang"] = sglang_attention

def main():
    return ALL_ATTENTION_FUNCTIONS["sglang"] is sglang_attention, ALL_ATTENTION_FUNCTIONS["sglang"]()
''')
    assert value == (True, 1)
    assert interp.stops == []


def test_an_outside_base_that_holds_the_models_objects_is_not_taken_as_outside(tmp_path):
    # torch.nn.Module.modules() yields the submodules the instance holds: a write through what it
    # yields may change them, so it is not dropped as a write into outside code's object
    value, interp = run(tmp_path, '''
import torch

class Part:
    def __init__(self):
        self.flag = False

class Model(torch.nn.Module):
    def __init__(self):
        self.part = Part()

def main():
    model = Model()
    for module in model.modules():
        module.flag = True
    return model.part.flag
''')
    assert options(value) in (None, {False, True})   # not False: the loop may have written it
    assert interp.stops == []


def test_an_outside_base_given_the_models_objects_is_not_taken_as_outside(tmp_path):
    # a NamedTuple keeps what it is given as its fields: `pair.first` is the record, so a write
    # through it is the record's
    value, interp = run(tmp_path, '''
from typing import NamedTuple

class Box:
    def __init__(self):
        self.flag = False

class Pair(NamedTuple):
    first: object
    second: object

def main():
    box = Box()
    pair = Pair(box, 2)
    pair.first.flag = True
    return box.flag
''')
    assert value is True
    assert interp.stops == []


def test_a_named_tuple_built_from_arguments_not_known(tmp_path):
    # 0.5.16 configs/custom_all_reduce_v2.py `_pack_heuristic(*args)`: `Heuristic(*arg_list)`; no
    # analysed code runs when a NamedTuple is built, so the call is followed with its fields unknown
    value, interp = run(tmp_path, '''
from typing import NamedTuple

class Heuristic(NamedTuple):
    max_bytes: int
    num_blocks: int

def pack(*args):
    arg_list = [int(p) if isinstance(p, float) else p for p in args]
    return Heuristic(*arg_list)

def main(row):
    h = pack(*row)
    return isinstance(h, Heuristic), h.max_bytes
''', args=(Unknown("a row of the tuned table"),))
    is_heuristic, field = value
    assert is_heuristic is True
    assert options(field) is None
    assert interp.stops == []


def test_a_parameter_the_outside_base_made_is_written_through(tmp_path):
    # 0.5.8 models/qwen3_next.py: `self.conv1d.weight.data = self.conv1d.weight.data.unsqueeze(1)`
    # on a layer (an nn.Module holding the model's objects) whose weight torch registered
    value, interp = run(tmp_path, '''
import torch

class QuantMethod:
    pass

class ColumnParallelLinear(torch.nn.Module):
    def __init__(self):
        self.quant_method = QuantMethod()
        self.register_parameter("weight", torch.nn.Parameter(torch.empty(4)))

class Mixer:
    def __init__(self):
        self.conv1d = ColumnParallelLinear()
        self.conv1d.weight.data = self.conv1d.weight.data.unsqueeze(1)
        self.ready = True

def main():
    return Mixer().ready
''')
    assert value is True
    assert interp.stops == []


def test_a_submodule_handed_to_the_outside_base_is_not_taken_as_outside(tmp_path):
    # `self.add_module(name, part)`: torch keeps `part`, and `self.block` gives it back
    value, interp = run(tmp_path, '''
import torch

class Part:
    def __init__(self):
        self.flag = False

class Model(torch.nn.Module):
    def __init__(self, part):
        self.add_module("block", part)

def main():
    part = Part()
    model = Model(part)
    model.block.flag = True
    return part.flag
''')
    assert options(value) == {False, True}
    assert interp.stops == []


def test_a_write_through_a_value_not_known_makes_each_attribute_it_may_reach_unknown(tmp_path):
    # 0.5.5 model_loader/loader.py device_loading_context: `for name, p in module.named_parameters():
    # p.data = device_data`, where p may be an instance of an analysed Parameter subclass
    value, interp = run(tmp_path, '''
class Parameter:
    data = "class default"

    def __init__(self, data):
        self.data = data

class Other:
    def __init__(self):
        self.size = 1

def main(p):
    weight = Parameter("on cpu")
    other = Other()
    p.data = "on gpu"
    return weight.data, other.size, Parameter.data
''', args=(Unknown("a parameter torch yields"),))
    weight_data, size, class_data = value
    assert options(weight_data) == {"on cpu", "on gpu"}
    assert size == 1
    assert options(class_data) == {"class default", "on gpu"}
    assert interp.stops == []


_POOLS = '''
import os

class MambaPool:
    def __init__(self):
        self.conv = [[0, 0]]

    def layer_cache(self, layer_id):
        return self

class HybridPool:
    def __init__(self):
        self.mamba_pool = MambaPool()

    def mamba2_layer_cache(self, layer_id):
        return self.mamba_pool.layer_cache(layer_id)

class PlainPool:
    def __init__(self):
        self.size = 4

def main():
    pool = HybridPool() if os.environ.get("HYBRID") else PlainPool()
    %s
    cache = pool.mamba2_layer_cache(0)
    cache.conv[0][1] = 7
    return cache.conv[0][1]
'''


def test_a_method_one_of_two_objects_lacks_is_the_others(tmp_path):
    # 0.5.10 gdn_backend.py: `self.req_to_token_pool.mamba2_layer_cache(layer.layer_id).conv[0]`
    # with the pool a hybrid one or a plain one as the paths joined; on the plain one's path Python
    # raises AttributeError, so the store goes into the mamba pool's list (no give-up)
    value, interp = run(tmp_path, _POOLS % "", env_open=True)
    assert value == 7
    assert interp.stops == []


def test_an_attribute_written_through_a_value_not_known_is_not_taken_as_lacking(tmp_path):
    # a write of `.mamba2_layer_cache` through a value not known may have given the plain pool one:
    # the path where the pool is the plain one goes on, so what was stored is not certain
    value, interp = run(tmp_path, _POOLS % "unknown_thing().mamba2_layer_cache = None", env_open=True)
    assert options(value) is None
    assert "mamba2_layer_cache" in interp.written_anywhere


def test_setattr_under_a_name_not_known_may_write_any_attribute(tmp_path):
    # `setattr(self, key, value)` with a key from the environment: each attribute the object holds
    # may now be the value, and a method another object lacks may have been given to it
    value, interp = run(tmp_path, '''
import os

class Box:
    def __init__(self):
        self.x = 1

def main():
    box = Box()
    setattr(box, os.environ.get("KEY"), 5)
    return box.x
''', env_open=True)
    assert options(value) == {1, 5}
    assert interp.stops == []
    value, interp = run(tmp_path, (_POOLS % "setattr(PlainPool(), os.environ.get('KEY'), 3)").replace(
        "return cache.conv[0][1]", "return pool.mamba2_layer_cache"), env_open=True)
    assert options(value) is None   # the plain pool may hold it now


def test_setattr_under_one_of_a_few_names(tmp_path):
    value, interp = run(tmp_path, '''
import os

class Box:
    def __init__(self):
        self.x = 1
        self.y = 2

def main():
    box = Box()
    setattr(box, "x" if os.environ.get("K") else "y", 5)
    return box.x, box.y
''', env_open=True)
    assert options(value[0]) == {1, 5} and options(value[1]) == {2, 5}
    assert interp.stops == []
