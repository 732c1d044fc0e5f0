"""Constructs the startup run reaches in SGLang's models and utilities that the interpreter
follows without giving up: calling a torch.nn.Module instance (its `forward` runs) and a store
through a `collections.defaultdict` entry read under a key not known.

Each test runs under FLAGSCAN_STRICT=1, so a give-up fails it (GaveUp).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import Fresh, Maybe, ModuleVal, Unknown
from flagscan.evaluate.startup.outside import OutsideBaseMethods, outside_calls, outside_self, outside_stores
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from flagscan.strict import GaveUp
from tests.evaluate.helpers import run, write_tree

pytestmark = pytest.mark.usefixtures("strict")


class _Startup(OutsideBaseMethods, Interpreter):
    returns_self, calls = outside_self(load("startup")), outside_calls(load("startup"))
    stores = outside_stores(load("startup"))


def _call(tmp_path: Path, source: str, function: str = "main", args: tuple = ()) -> Any:
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": source})
    interp = _Startup(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    try:
        return interp.call(interp.deref(module.globals[function], state), list(args), {}, state, module)
    except Dead:
        return Dead


MODULES = """
from torch import nn

class Layer(nn.Module):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return x * self.k

class Model(nn.Module):
    def __init__(self):
        self.layer = Layer(3)

    def forward(self, x, scale=1):
        return self.layer(x) * scale + 1

class OwnCall(nn.Module):
    def __call__(self, x):
        return "own"

    def forward(self, x):
        return "forward"

class Plain:
    def forward(self, x):
        return x

def main():
    model = Model()
    return model(2), model(2, scale=10), OwnCall()(0)

def plain():
    return Plain()(1)
"""


def test_calling_an_nn_module_instance_runs_its_forward(tmp_path) -> None:
    # 0.5.10 models/llama.py LlamaForCausalLM.forward: `hidden_states = self.model(input_ids, ...)`;
    # torch's Module.__call__ runs forward (rules/startup.toml [[outside_base]] call); a class's
    # own __call__ is still the one called
    assert _call(tmp_path, MODULES) == (7, 61, "own")


def test_calling_an_instance_without_a_call_method_still_gives_up(tmp_path) -> None:
    # a tree class with no outside base whose __call__ is known: Python raises TypeError; not modelled
    with pytest.raises(GaveUp):
        _call(tmp_path, MODULES, function="plain")


def test_the_outside_call_method_is_rule_data() -> None:
    calls = outside_calls(load("startup"))
    assert calls["torch.nn.Module"] == "forward" and calls["torch.nn.Identity"] == "forward"
    assert all(base.startswith("torch.nn.") and name.isidentifier() for base, name in calls.items())


LAYERS = """
import torch

class VocabParallelEmbedding(torch.nn.Module):
    def forward(self, input_ids):
        return ("embedded", input_ids)

class PPMissingLayer(torch.nn.Identity):
    def forward(self, *args, **kwargs):
        return args[0]

class Scaled:
    def __call__(self, x):
        return x * 2

def main(first_rank):
    embed = VocabParallelEmbedding() if first_rank else PPMissingLayer()
    scale = Scaled() if first_rank else Scaled()
    return embed(1), scale(3)
"""


def test_calling_one_of_several_layers_runs_each_forward(tmp_path) -> None:
    # 0.5.10 mm_utils.py embed_mm_inputs: `input_embeds = input_embedding(input_ids)`, where the
    # language model's embed_tokens is a VocabParallelEmbedding or (pipeline parallel, not the
    # first rank) a PPMissingLayer(torch.nn.Identity)
    value = _call(tmp_path, LAYERS, args=(Unknown("first_rank"),))
    assert isinstance(value, tuple) and value[1] == 6
    assert isinstance(value[0], Unknown) and value[0].options is not None
    assert sorted(map(repr, value[0].options)) == sorted(map(repr, [("embedded", 1), 1]))


NUMA = """
from collections import defaultdict

def main(node):
    physical_by_node = defaultdict(dict)
    physical_by_node[0]["seen"] = 1
    first = physical_by_node[0]
    for key in ("a", "b"):
        if key not in physical_by_node[node]:
            physical_by_node[node][key] = 5
    return first, physical_by_node[1], physical_by_node.get(2), physical_by_node[node]
"""


def test_a_store_through_a_defaultdict_entry_under_a_key_not_known_may_reach_any_entry(tmp_path) -> None:
    # 0.5.14-0.5.23 utils/common.py get_physical_cpus_by_numa: `physical_by_node[node][key] = cpu`
    # with the NUMA node read from lscpu: the entry written may be any one, so each may hold it
    (first, later, got, some), interp = run(tmp_path, NUMA, args=(Unknown("node"),))
    assert first["seen"] == 1
    assert isinstance(first["a"], Maybe) and first["a"].value == 5 and isinstance(first["b"], Maybe)
    # a key read afterwards may be the entry the key not known made, or a fresh one: not known
    assert isinstance(later, Unknown) and later.options is not None and len(later.options) == 2
    assert {} in later.options and any(isinstance(o, Fresh) for o in later.options)
    assert isinstance(got, Unknown) and got.options is not None and None in got.options
    assert isinstance(some, Unknown) and some.options is not None
    assert any(isinstance(o, dict) and o.get("seen") == 1 for o in some.options)
    assert any(isinstance(o, Fresh) for o in some.options)
    assert interp.stops == []


def test_a_defaultdict_read_under_a_key_not_known_before_any_store_is_one_of_its_entries(tmp_path) -> None:
    value, _ = run(tmp_path, """
from collections import defaultdict

def main(node):
    groups = defaultdict(list)
    groups["a"].append(1)
    return groups[node]
""", args=(Unknown("node"),))
    # the entry under "a", or one made under another key, whose contents are not known
    assert isinstance(value, Unknown) and value.options is not None and len(value.options) == 2
    assert [1] in value.options and any(isinstance(o, Fresh) for o in value.options)


def test_an_append_through_a_defaultdict_entry_under_a_key_not_known_leaves_it_not_known(tmp_path) -> None:
    value, _ = run(tmp_path, """
from collections import defaultdict

def main(node):
    groups = defaultdict(list)
    groups[node].append(2)
    return groups[node]
""", args=(Unknown("node"),))
    # never a certain empty list: the append may have filled the entry
    assert isinstance(value, Unknown) and (value.options is None or all(isinstance(o, Fresh) for o in value.options))


REPEATED = """
import torch

class Layer:
    def __init__(self, layer_id):
        self.layer_id = layer_id

def main(n, i):
    indexed = [None] * (n + 1)
    before = indexed[i]
    indexed[i] = Layer(i)
    shared = Layer(0)
    repeated = [shared] * n
    repeated[0].layer_id = 5
    written = shared.layer_id
    other = Layer(1)
    others = [other] * n
    others.append(Layer(2))
    others[i].layer_id = 7
    return indexed, before, indexed[0], written, other.layer_id
"""


def test_a_store_into_a_list_repeated_a_number_of_times_not_known_reaches_nothing_else(tmp_path) -> None:
    # 0.5.20 cuda_graph_setup.py: `indexed_attention = [None] * (max_layer_id + 1)`, then
    # `indexed_attention[layer_id] = attention`
    (indexed, before, first, shared, other), interp = run(tmp_path, REPEATED, args=(Unknown("n"), Unknown("i")))
    assert isinstance(indexed, Unknown) and before is None
    # after the store the element read may be the layer stored: not known
    assert isinstance(first, Unknown) and first.options is None
    # every element of `[shared] * n` is shared itself
    assert shared == 5
    # after an append an element may be another object: a write through it may have reached other
    assert isinstance(other, Unknown) and other.options is not None and set(other.options) == {1, 7}
    assert interp.stops == []


BUFFERS = """
import torch

class Pool:
    def __init__(self, layers):
        self.k_buffer = [torch.zeros((4, 8), dtype=torch.bfloat16, device="cuda") for _ in range(layers)]

    def set_kv_buffer(self, layer_id, loc, k):
        k_cache = self.k_buffer[layer_id]
        k_cache[loc] = k
        return k_cache

def main(layer_id, loc):
    return Pool(40).set_kv_buffer(layer_id, loc, "k")
"""


def test_a_store_into_one_of_a_list_of_outside_objects_under_an_index_not_known(tmp_path) -> None:
    # 0.5.16 mem_cache/memory_pool.py: `k_cache = self.k_buffer[layer_id]; k_cache[indices] = k`
    value, interp = run(tmp_path, BUFFERS, args=(Unknown("layer_id"), Unknown("loc")))
    assert isinstance(value, Unknown) and "runtime:torch.zeros" in value.needs
    assert interp.stops == []


def test_an_index_not_known_into_a_list_of_analysed_values_stays_unknown(tmp_path) -> None:
    value, _ = run(tmp_path, BUFFERS.replace("torch.zeros((4, 8), dtype=torch.bfloat16, device=\"cuda\")", "{}")
                   .replace("k_cache[loc] = k", "pass"), args=(Unknown("layer_id"), Unknown("loc")))
    assert isinstance(value, Unknown) and value.options is None and not value.needs


NONE_BUFFER = """
def replay(mrope_positions, buffer, n, m):
    if mrope_positions is not None:
        buffer[:, n:m].zero_()
    return "replayed"

def main(mrope_positions, n, m):
    try:
        return replay(mrope_positions, None, n, m)
    except TypeError:
        return "TypeError"
"""


def test_subscripting_none_raises_type_error(tmp_path) -> None:
    # 0.5.10 piecewise_cuda_graph_runner.py replay_prepare: `buffers.mrope_positions[:, n:m]`, None
    # for a text-only model, where the batch's own mrope_positions is not known to be None
    value, interp = run(tmp_path, NONE_BUFFER, args=(Unknown("mrope_positions"), Unknown("n"), Unknown("m")))
    assert isinstance(value, Unknown) and set(value.options or ()) == {"replayed", "TypeError"}
    assert interp.stops == []


COMPREHENSION = """
import torch

class Layer:
    def __init__(self):
        self.size = 0

def main(n, i):
    buffers = [torch.zeros((4, 8)) for _ in range(n)]
    layers = [Layer() for _ in range(n)]
    first = buffers[i]
    layers[i].size = 3
    buffers.append(Layer())
    return first, buffers[i], layers[i]
"""


def test_a_comprehension_over_values_not_known_of_outside_objects_gives_them(tmp_path) -> None:
    # 0.5.16 memory_pool.py MHATokenToKVPool: `[torch.zeros(...) for _ in range(self.layer_num)]`
    (first, after, layer), interp = run(tmp_path, COMPREHENSION, args=(Unknown("n"), Unknown("i")))
    assert isinstance(first, Unknown) and "runtime:torch.zeros" in first.needs
    # after an append an element may be the appended object; analysed elements are not known
    assert isinstance(after, Unknown) and not after.needs and after.options is None
    assert isinstance(layer, Unknown) and not layer.needs and layer.options is None
    assert interp.stops == []


MODES = """
from enum import Enum, IntEnum

class CaptureHiddenMode(IntEnum):
    NULL = 0
    LAST = 1
    FULL = 2

    def __lt__(self, other):
        return self.value < other.value

class Plain(Enum):
    A = 1
    B = 2

def main():
    mode = CaptureHiddenMode.LAST
    spec = CaptureHiddenMode.FULL
    return (max(mode, spec), min(mode, spec), max([CaptureHiddenMode.NULL, mode]), mode < spec,
            spec > mode, CaptureHiddenMode.NULL >= mode)

def plain():
    return Plain.A < Plain.B
"""


def test_the_order_of_int_enum_members(tmp_path) -> None:
    # 0.5.18-0.5.23 forward_batch_info.py get_required_capture_hidden_mode:
    # `max(capture_hidden_mode, spec_capture_hidden_mode)`, CaptureHiddenMode an IntEnum with __lt__
    value, interp = run(tmp_path, MODES)
    assert [getattr(v, "name", v) for v in value] == ["FULL", "LAST", "LAST", True, True, False]
    assert interp.stops == []


def test_the_order_of_plain_enum_members_is_not_modelled(tmp_path) -> None:
    # Python raises TypeError: not followed (a give-up), never a guessed order
    with pytest.raises(GaveUp):
        run(tmp_path, MODES, function="plain")


SHARED = """
import torch

class VocabParallelEmbedding(torch.nn.Module):
    def __init__(self):
        self.weight = "own"

class PPMissingLayer(torch.nn.Identity):
    pass

class Model:
    def __init__(self, first_rank):
        self.embed = VocabParallelEmbedding()
        self.embed_tokens = self.embed if first_rank else PPMissingLayer()

    def set_embed(self, embed):
        del self.embed_tokens.weight
        return self.embed.weight

def main(first_rank):
    return Model(first_rank).set_embed("shared")
"""


def test_deleting_an_attribute_of_one_of_several_objects_leaves_it_not_known(tmp_path) -> None:
    # 0.5.10 qwen3_5_mtp.py set_embed_and_head: `del self.model.embed_tokens.weight` where
    # embed_tokens is a VocabParallelEmbedding or (not the first pipeline rank) a PPMissingLayer
    value, interp = run(tmp_path, SHARED, args=(Unknown("first_rank"),))
    assert isinstance(value, Unknown) and value.options is None
    assert interp.stops == []


FLAGS = """
class ForwardFlags:
    _DEFAULTS = {"lora_batch_layout": "dp"}

    def __init__(self):
        self._plain = dict(self._DEFAULTS)

    def set(self, name, value):
        self._plain[name] = value

    def scoped(self, **kwargs):
        unknown = set(kwargs) - set(self._DEFAULTS)
        helper = lambda: set(kwargs)
        return sorted(unknown), sorted(helper())

def outer():
    base = 10

    class Local:
        base = 1

        def read(self):
            return base

    return Local().read()

def main():
    return ForwardFlags().scoped(lora_batch_layout="local", other=1), outer()
"""


def test_a_method_does_not_see_its_class_body_names(tmp_path) -> None:
    # 0.5.23 runtime_context.py ForwardFlags.scoped: `set(kwargs)` is the builtin, not the
    # class's own method `set`; a method of a class inside a function sees the function's names
    value, interp = run(tmp_path, FLAGS)
    assert value == ((["other"], ["lora_batch_layout", "other"]), 10)
    assert interp.stops == []


REGISTERED = """
import torch
from torch import nn

class Fp8LinearMethod:
    def create_weights(self, layer):
        layer.register_parameter("weight_scale_inv", nn.Parameter(torch.empty(4)))

class Linear(nn.Module):
    def __init__(self, quantized):
        if quantized:
            Fp8LinearMethod().create_weights(self)

def main(quantized):
    wo_a = Linear(quantized)
    assert hasattr(wo_a, "weight_scale_inv")
    return hasattr(wo_a, "weight_scale_inv"), hasattr(wo_a, "training"), hasattr(Fp8LinearMethod(), "x")
"""


def test_a_registered_parameter_is_an_attribute_and_hasattr_sees_it(tmp_path):
    # 0.5.14 deepseek_v4.py `assert hasattr(self.wo_a, "weight_scale_inv")`, the parameter that
    # fp8.py's create_weights registered: the assert holds, it is no certain startup crash
    registered, training, plain = _call(tmp_path, REGISTERED, args=(True,))
    assert registered is True
    assert isinstance(training, Unknown)   # nn.Module's own attributes are torch's: not known
    assert plain is False                  # a class of the tree alone: not there


def test_hasattr_on_a_module_that_registered_nothing_is_not_known(tmp_path):
    # never a certain False: the outside base may hold it
    interp_value = _call(tmp_path, REGISTERED.replace("    assert hasattr(wo_a, \"weight_scale_inv\")\n", ""),
                         args=(False,))
    assert isinstance(interp_value[0], Unknown)


def test_a_store_into_an_element_of_new_lists_of_outside_objects_is_followed(tmp_path) -> None:
    # 0.5.23 memory_pool.py: `self.k_buffer` is `[_zeros(shape) for _ in range(n)]` (a local function
    # calling torch.zeros) on one side of a branch and `[buf[0, :rows] for buf in fused]` on the
    # other; `k_cache = self.k_buffer[i]; k_cache[idx] = k` gave up on an element not known
    value = _call(tmp_path, '''
import torch
def main(n, flag):
    def _zeros(shape):
        return torch.zeros(shape)
    if flag:
        bufs = [_zeros(4) for _ in range(n)]
    else:
        fused = [_zeros(8) for _ in range(n)]
        bufs = [buf[0, :2] for buf in fused]
    k_cache = bufs[1]
    k_cache[0] = 3
    return bufs
''', args=(Unknown("layers"), Unknown("layout")))
    assert isinstance(value, Fresh) and value.known


def test_a_constructor_in_a_comprehension_over_a_length_not_known_runs_on_a_path_that_assumes_an_element(
        tmp_path) -> None:
    # 0.5.14 mimo_vl.py: `self.blocks = nn.ModuleList([MiMoVisionBlock(...) for i in range(depth)])`
    # with the vision config's depth not known skipped the constructor, and with it VisionAttention's
    # refusal of fa3 on Blackwell
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": '''
class Block:
    def __init__(self, backend):
        if backend == "fa3":
            raise ValueError("fa3 refused")

def main(depth):
    return [Block("fa3") for _ in range(depth)]
'''})
    interp = _Startup(ModuleStore(root, tmp_path / "cache"), World(profile_from_spec("h200"), {}))
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    value = interp.call(interp.deref(module.globals["main"], state), [Unknown("depth", {"model:depth"})], {}, state,
                        module)
    assert isinstance(value, Fresh)   # the path with no element returns the (empty) new list
    ((raising, exc),) = state.raised
    assert exc.type_name == "ValueError"
    (assumed,) = raising.assumptions
    assert assumed == "the comprehension over range(depth) has an element"
    assert "model:depth" in interp.assumed_needs[assumed]   # possible, with what would decide it
