"""Constructs SGLang's resolution reaches that the interpreter follows without giving up.

Each test runs under FLAGSCAN_STRICT=1, so a give-up fails it (GaveUp), and checks the
value Python itself computes. The shapes are those of the releases' own code
(sglang/jit_kernel/utils.py's `cache_once` and `_jit_compile_context`,
sglang/srt/runtime_context.py's property getters, hf_transformers_utils.py's `del`).
"""

from __future__ import annotations

import pytest

from flagscan.evaluate.interp.values import Unknown
from tests.evaluate.helpers import options, run

pytestmark = pytest.mark.usefixtures("strict")


def test_functools_wraps_keeps_the_wrapper(tmp_path):
    # jit_kernel/utils.py: `@functools.wraps(fn) def wrapper(...)`; calling the decorated
    # function runs the wrapper (which calls fn), and the wrapper carries fn's name.
    value, interp = run(tmp_path, '''
import functools

def cache_once(fn):
    result_map = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items(), key=lambda x: x[0])))
        if key not in result_map:
            result_map[key] = fn(*args, **kwargs)
        return result_map[key]

    return wrapper

@cache_once
def is_hip_runtime() -> bool:
    return False

def main():
    return is_hip_runtime(), is_hip_runtime.__name__, is_hip_runtime.__wrapped__() is False
''')
    assert value == (False, "is_hip_runtime", True)
    assert interp.stops == []


def test_cached_property_is_read_as_an_attribute(tmp_path):
    value, _ = run(tmp_path, '''
import functools

class Layout:
    def __init__(self, n):
        self.n = n

    @functools.cached_property
    def doubled(self):
        return self.n * 2

def main():
    return Layout(3).doubled
''')
    assert value == 6


def test_attributes_written_on_a_function(tmp_path):
    # runtime_context.py: `getter.__name__ = name; getter.__doc__ = decl.doc`
    value, _ = run(tmp_path, '''
def main():
    def getter(self):
        return 1
    getter.__name__ = "tp_size"
    getter.__doc__ = "the TP size"
    return getter.__name__, getter.__doc__
''')
    assert value == ("tp_size", "the TP size")


def test_del_of_names_attributes_and_items(tmp_path):
    value, _ = run(tmp_path, '''
class Box:
    pass

def main():
    d = {"a": 1, "b": 2}
    del d["a"]
    items = [1, 2, 3, 4]
    del items[0], items[-1]
    box = Box()
    box.x = 1
    box.y = 2
    del box.x
    name = 5
    del name
    try:
        del d["missing"]
        missing = "no error"
    except KeyError:
        missing = "KeyError"
    return d, items, hasattr(box, "x"), box.y, "name" in locals() if False else None, missing
''')
    assert value == ({"b": 2}, [2, 3], False, 2, None, "KeyError")


def test_del_at_module_level(tmp_path):
    # hf_transformers_utils.py: `import flash_attn as _m ... del _m` inside a try
    value, _ = run(tmp_path, '''
try:
    import flash_attn as _flash_attn_mod
    del _flash_attn_mod
except ImportError:
    pass

def main():
    return 1
''')
    assert value == 1


def test_del_under_a_key_not_known_leaves_every_entry_possible(tmp_path):
    value, _ = run(tmp_path, '''
import os

def main():
    d = {"a": 1, "b": 2}
    del d[os.environ.get("KEY")]
    return "a" in d, d.get("b")
''', env_open=True)
    present, b = value
    assert options(present) is None or options(present) == {True, False}
    assert options(b) == {2, None}


def test_contextmanager_runs_its_code_around_the_with_body(tmp_path):
    # jit_kernel/utils.py `_jit_compile_context`: set an environment variable, yield, restore it
    value, _ = run(tmp_path, '''
import contextlib

STATE = {}

@contextlib.contextmanager
def setting(key, value):
    STATE[key] = value
    try:
        yield value * 2
    finally:
        del STATE[key]

def inside():
    with setting("arch", 9) as doubled:
        return dict(STATE), doubled

def main():
    seen, doubled = inside()
    return seen, doubled, dict(STATE)
''')
    assert value == ({"arch": 9}, 18, {})


def test_contextmanager_sees_an_exception_of_the_with_body(tmp_path):
    value, _ = run(tmp_path, '''
from contextlib import contextmanager

@contextmanager
def swallow():
    try:
        yield
    except ValueError:
        pass

def main():
    log = []
    with swallow():
        log.append(1)
        raise ValueError("x")
    log.append(2)
    return log
''')
    assert value == [1, 2]


def test_contextmanager_method_and_branch_that_returns_after_yield(tmp_path):
    # runtime_context.py `yield self` in a method; utils.py `if is_hip_runtime(): yield; return`
    value, _ = run(tmp_path, '''
from contextlib import contextmanager

class Context:
    def __init__(self):
        self.overrides = 0

    @contextmanager
    def override(self, hip):
        if hip:
            yield self
            return
        self.overrides += 1
        try:
            yield self
        finally:
            self.overrides -= 1

def main():
    ctx = Context()
    with ctx.override(False) as c:
        inside = c.overrides
    with ctx.override(True) as c:
        hip_inside = c.overrides
    return inside, hip_inside, ctx.overrides
''')
    assert value == (1, 0, 0)


def test_iterating_a_generator(tmp_path):
    value, _ = run(tmp_path, '''
def evens(n):
    for i in range(n):
        if i % 2 == 0:
            yield i

def main():
    made = evens(5)
    return list(made), [x + 1 for x in evens(3)], sum(evens(7))
''')
    assert value == ([0, 2, 4], [1, 3], 12)


def test_a_generator_function_call_runs_nothing_yet(tmp_path):
    value, _ = run(tmp_path, '''
LOG = []

def gen():
    LOG.append("ran")
    yield 1

def main():
    g = gen()
    before = list(LOG)
    items = list(g)
    return before, items, LOG
''')
    assert value == ([], [1], ["ran"])


def test_star_arguments_not_known_into_a_function_of_star_args(tmp_path):
    # jit_kernel: `load_jit("awq_dequantize", *args, cuda_files=[...])` into `def load_jit(*args, ...)`
    value, interp = run(tmp_path, '''
import torch

LOADED = []

def load_jit(*args, cuda_files=None):
    LOADED.append(cuda_files)
    return "_".join(str(a) for a in args)

def main():
    args = torch.something_not_known()
    name = load_jit("awq", *args, cuda_files=["gemm.cuh"])
    return LOADED, name
''')
    loaded, name = value
    assert loaded == [["gemm.cuh"]]
    assert options(name) is None
    assert interp.stops == []


def test_an_outside_value_as_a_dict_key(tmp_path):
    # jit_kernel/utils.py CPP_DTYPE_MAP: keyed by torch dtypes
    value, _ = run(tmp_path, '''
import torch

CPP_DTYPE_MAP = {torch.float: "fp32_t", torch.float16: "fp16_t", torch.bfloat16: "bf16_t"}

def main():
    return (CPP_DTYPE_MAP[torch.bfloat16], torch.float16 == torch.float16, torch.float16 in CPP_DTYPE_MAP,
            CPP_DTYPE_MAP[torch.float32], CPP_DTYPE_MAP[torch.uint8])
''')
    found, equal, member, alias, other = value
    assert (found, equal, member) == ("bf16_t", True, True)
    # torch.float is torch.float32 (rules/world.toml [values] same:)
    assert alias == "fp32_t"
    # a dotted path the rules do not relate to the keys: one of the values (or a KeyError), not a guess
    assert options(other) == {"fp32_t", "fp16_t", "bf16_t"}


def test_a_slice_among_several_indices(tmp_path):
    # bitsandbytes.py: `out[:, current_index : current_index + output_size] = ...`
    value, _ = run(tmp_path, '''
class Grid:
    def __getitem__(self, key):
        return key

def main():
    lo = 1
    return Grid()[:, lo:lo + 2] == Grid()[:, 1:3], Grid()[:, lo:] == Grid()[:, 1:3]
''')
    assert value == (True, False)


def test_a_closure_name_after_a_branch_in_the_nested_function(tmp_path):
    value, _ = run(tmp_path, '''
import os

def main():
    x = 7
    def inner():
        if os.environ.get("FLAG"):
            y = 1
        else:
            y = 2
        return x
    return inner()
''', env_open=True)
    assert value == 7


def test_an_attribute_of_one_of_several_records(tmp_path):
    # 0.5.20 memory_hook.py: `decode = cfg.cuda_graph_config.decode; decode.max_bs = 512`, the
    # config coming from a __getattr__ whose paths return different records
    value, _ = run(tmp_path, '''
import os

class Decode:
    def __init__(self, max_bs):
        self.max_bs = max_bs

class Config:
    def __init__(self, decode):
        self.decode = decode

def main():
    a, b = Config(Decode(None)), Config(Decode(None))
    cfg = a if os.environ.get("FLAG") else b
    decode = cfg.decode
    if decode.max_bs is None:
        decode.max_bs = 512
    return a.decode.max_bs, b.decode.max_bs
''', env_open=True)
    first, second = value
    assert options(first) == {None, 512} and options(second) == {None, 512}


def test_bytes_literals(tmp_path):
    # hf_transformers/common.py `f.read(4) == b"GGUF"`, jit_kernel/utils.py `b"\x00"`
    value, interp = run(tmp_path, r'''
def main():
    return b"GGUF", rb"a\x00", b"\x00" + b"x", b"GGUF" == b"GG" + b"UF"
''')
    assert value == (b"GGUF", rb"a\x00", b"\x00x", True)
    assert interp.stops == []


def test_an_instance_made_by_the_class_new_without_init(tmp_path):
    # shm_broadcast.py `self = MessageQueue.__new__(MessageQueue); self.handle = handle`
    value, _ = run(tmp_path, '''
class Queue:
    def __init__(self):
        self.size = 1

    @staticmethod
    def create(handle):
        self = Queue.__new__(Queue)
        self.handle = handle
        return self

class Other:
    pass

def main():
    q = Queue.create("h")
    o = object.__new__(Other)
    o.x = 2
    return q.handle, hasattr(q, "size"), isinstance(q, Queue), o.x
''')
    assert value == ("h", False, True, 2)


def test_patching_the_class_of_an_outside_object(tmp_path):
    # patch_tokenizer.py `tokenizer_cls = type(tokenizer); tokenizer_cls._pad = patched_pad`,
    # the tokenizer made by transformers: its class is outside the analysed code
    value, interp = run(tmp_path, '''
import transformers

def main():
    tokenizer = transformers.AutoTokenizer.from_pretrained("m")
    tokenizer_cls = type(tokenizer)
    tokenizer_cls._pad = len
    return 1
''')
    assert value == 1 and interp.stops == []


def test_an_outside_object_made_with_keyword_arguments_not_known(tmp_path):
    # hf_transformers_utils.py `sub = PretrainedConfig(**_sub); sub.torch_dtype = dtype`
    value, interp = run(tmp_path, '''
from transformers import PretrainedConfig

def main(raw):
    config = PretrainedConfig(**raw)
    config.torch_dtype = "bfloat16"
    return config.torch_dtype
''', args=(None,))
    assert interp.stops == []
    assert options(value) is None   # outside code's object: what it holds stays unknown


def test_a_list_extended_by_elements_not_known_is_unknown_everywhere_it_is_held(tmp_path):
    # connector/redis.py `all_keys.extend(keys)` with `keys` from the redis client: the list's
    # length and elements are not known, in this function, its caller and the record holding it
    value, interp = run(tmp_path, '''
import redis

class Holder:
    def __init__(self):
        self.keys = ["a"]

def fill(keys, holder):
    keys.extend(redis.Redis().scan())
    holder.keys.extend(redis.Redis().scan())
    return len(keys)

def main():
    keys = ["x"]
    holder = Holder()
    box = {"k": keys}
    n = fill(keys, holder)
    return n, len(keys), keys, holder.keys, box["k"], "x" in keys
''')
    assert interp.stops == []
    assert all(options(v) is None for v in value), value


def test_a_set_updated_and_a_list_popped_at_an_index_not_known(tmp_path):
    value, interp = run(tmp_path, '''
import os

def main():
    seen = {1}
    seen.update(os.environ.get("X"))
    order = [1, 2, 3]
    first = order.pop(int(os.environ.get("I")))
    return 1 in seen, len(order), first
''', env_open=True)
    assert interp.stops == []
    assert all(options(v) is None for v in value), value


def test_globals_rebinds_a_module_function(tmp_path):
    # parallel_state.py: `for _name in ...: globals()[_name] = _warn(_name)(globals().get(_name))`
    value, interp = run(tmp_path, '''
def get_tp_group():
    return "tp"

def _wrap(fn):
    def inner():
        return "wrapped " + fn()
    return inner

for _name in ["get_tp_group"]:
    _fn = globals().get(_name)
    if _fn is not None:
        globals()[_name] = _wrap(_fn)

def main():
    return get_tp_group()
''')
    assert value == "wrapped tp" and interp.stops == []


def test_dict_fromkeys(tmp_path):
    # graph_memory_usage.py `merged = dict.fromkeys(GRAPH_MEMORY_USAGE_KEYS, 0.0); merged[phase] = ...`
    value, interp = run(tmp_path, '''
import os

KEYS = ("capture", "replay")

def main():
    merged = dict.fromkeys(KEYS, 0.0)
    merged["capture"] = merged.get("capture", 0.0) + 1.5
    some = dict.fromkeys(os.environ.get("PHASES"))
    return merged, "replay" in some
''', env_open=True)
    merged, present = value
    assert merged == {"capture": 1.5, "replay": 0.0} and options(present) is None
    assert interp.stops == []


def test_a_test_on_none_narrows_a_local_on_each_side(tmp_path):
    # linear_attn_model_registry.py `result = get_linear_attn_config(hf_config)`
    # `return result[0] if result is not None else None` (result: None or a pair)
    value, interp = run(tmp_path, '''
import os

def lookup():
    if os.environ.get("HYBRID"):
        return ("spec", "kind")
    return None

def main():
    result = lookup()
    first = result[0] if result is not None else None
    if result is None:
        second = "none"
    else:
        second = result[1]
    if not result:
        third = 0
    else:
        third = len(result)
    return first, second, third
''', env_open=True)
    assert interp.stops == []
    first, second, third = value
    assert options(first) == {"spec", None} and options(second) == {"kind", "none"} and options(third) == {2, 0}



def test_narrowing_keeps_an_option_whose_truth_is_not_known(tmp_path):
    # `if not dtype:` with dtype one of None or torch.bfloat16 (an outside object, whose truth
    # flagscan does not know): on the `not dtype` side dtype may still be the outside object
    value, _ = run(tmp_path, '''
import os
import torch

def main():
    dtype = torch.bfloat16 if os.environ.get("BF16") else None
    if not dtype:
        return dtype
    return "set"
''', env_open=True)
    found = options(value)
    assert found is None or (None in found and "set" in found and len(found) == 3), found


def test_an_instance_with_its_own_call_method_is_called(tmp_path):
    # layers/logits_processor.py-style callables: `self.logits_processor(input_ids, hidden_states)`
    # on an instance whose class defines __call__
    value, interp = run(tmp_path, '''
class Scale:
    def __init__(self, k):
        self.k = k
        self.calls = 0

    def __call__(self, x, *, bias=0):
        self.calls += 1
        return x * self.k + bias

def main():
    scale = Scale(3)
    return scale(2), scale(1, bias=1), scale.calls
''')
    assert value == (6, 4, 2)
    assert interp.stops == []


def test_a_call_with_keyword_arguments_not_known_binds_them(tmp_path):
    # layers/attention/base_attn_backend.py: `forward(self, q, ..., save_kv_cache=True, **kwargs)`
    # passes `**kwargs` (what the attention layer gave) on to forward_decode / forward_extend.
    # The call is made: a parameter the known arguments bind keeps its value, one they leave
    # may come from kwargs (not known), and the callee's own **kw is not known either.
    value, interp = run(tmp_path, '''
def forward_decode(q, layer, save_kv_cache=True, k_rope=None, **rest):
    if layer == "L":
        return (q, save_kv_cache, k_rope, rest)
    raise NotImplementedError("not reached: layer is given")

def forward(q, layer, kwargs):
    return forward_decode(q, layer, save_kv_cache=False, **kwargs)

def main(kwargs):
    return forward("Q", "L", kwargs)
''', args=(Unknown("the keyword arguments of a forward call"),))
    assert interp.stops == []
    q, save_kv_cache, k_rope, rest = value
    assert (q, save_kv_cache) == ("Q", False)
    assert options(k_rope) is None and options(rest) is None   # may come from kwargs: not known


def test_a_sort_by_an_analysed_key_function(tmp_path):
    # utils/network.py: `deduped.sort(key=lambda x: (x[0] != socket.AF_INET,))`; with the
    # elements known, the order is Python's; with one not known, the order is not known either
    value, interp = run(tmp_path, '''
def main(other):
    known = [("v6", 10), ("v4", 2), ("v6", 3)]
    known.sort(key=lambda x: (x[0] != "v4",))
    by_size = sorted(known, key=lambda x: x[1], reverse=True)
    mixed = [("v6", 10), other]
    mixed.sort(key=lambda x: (x[0] != "v4",))
    return known, by_size, mixed, sorted(mixed, key=lambda x: x[1])
''', args=(Unknown("an address not known"),))
    assert interp.stops == []
    known, by_size, mixed, mixed_sorted = value
    assert known == [("v4", 2), ("v6", 10), ("v6", 3)]
    assert by_size == [("v6", 10), ("v6", 3), ("v4", 2)]
    assert options(mixed) is None and options(mixed_sorted) is None


def test_dict_of_pairs_some_not_known_keeps_the_known_keys(tmp_path):
    # 0.5.9 kimi_k25.py load_weights: `vision_state_dict = dict(vision_weights)`, a list of
    # (name, weight) pairs some of which come from the checkpoint
    value, interp = run(tmp_path, '''
import os

def main():
    pairs = [("a", 1), os.environ.get("PAIR"), ("b", 2)]
    d = dict(pairs)
    return d["b"], d.get("a"), "c" in d
''', env_open=True)
    b, a, c = value
    assert b == 2                          # set after the pair not known: certain
    assert isinstance(a, Unknown)          # the unknown pair may have repeated "a"
    assert isinstance(c, Unknown)
    assert interp.stops == []


def test_a_dict_comprehension_over_values_not_known_is_a_new_dict(tmp_path):
    # 0.5.10 rotary_embedding/factory.py: `extra_kwargs = {k: v for k, v in rope_scaling.items()
    # if ...}`, then `extra_kwargs["truncate"] = ...` and `Cls(**extra_kwargs)`
    value, interp = run(tmp_path, '''
def build(truncate=False, beta_fast=32):
    return truncate, beta_fast

def main(rope_scaling):
    extra = {k: v for k, v in rope_scaling.items() if k in ("beta_fast", "beta_slow")}
    extra["truncate"] = True
    return extra["truncate"], build(**extra)
''', args=(Unknown("rope_scaling"),))
    truncate, (_built_truncate, beta_fast) = value
    assert truncate is True
    assert isinstance(beta_fast, Unknown)
    assert interp.stops == []


def test_a_dataclass_built_from_keywords_not_known(tmp_path):
    # 0.5.23 sampling/watermarking/config.py: `return WatermarkServerConfig(**raw)`, raw read from a file
    value, interp = run(tmp_path, '''
from dataclasses import dataclass

@dataclass
class WatermarkServerConfig:
    context_window: int = 4
    enforce_all: bool = False

class Plain:
    def __init__(self, a, b=2):
        self.a, self.b = a, b

def main(raw):
    config = WatermarkServerConfig(**raw)
    plain = Plain(1, **raw)
    return isinstance(config, WatermarkServerConfig), config.enforce_all, plain.a, plain.b
''', args=(Unknown("raw"),))
    is_config, enforce_all, a, b = value
    assert is_config is True
    assert isinstance(enforce_all, Unknown)   # from raw, or its default
    assert a == 1 and isinstance(b, Unknown)
    assert interp.stops == []


def test_an_item_store_into_an_instance_of_an_outside_base_is_its_content(tmp_path):
    # 0.5.14 fp8.py create_weights: `scale[:] = torch.finfo(torch.float32).min` on a
    # BlockQuantScaleParameter (a torch Parameter subclass of the tree)
    value, interp = run(tmp_path, '''
import torch

class BlockQuantScaleParameter(torch.nn.Parameter):
    pass

def main():
    scale = BlockQuantScaleParameter(torch.empty(4))
    scale.format_ue8m0 = False
    scale[:] = torch.finfo(torch.float32).min
    del scale[0]
    return scale.format_ue8m0
''')
    assert value is False
    assert interp.stops == []


def test_dict_of_pairs_whose_keys_are_not_known(tmp_path):
    # 0.5.9 kimi_k25.py: `vision_weights.append((name, loaded_weight))` with names from the
    # checkpoint, on some paths, then `dict(vision_weights)`
    value, interp = run(tmp_path, '''
import os

def main():
    pairs = [("a", 1)]
    if os.environ.get("MORE"):
        pairs.append(("a", 3))
    pairs.append((os.environ.get("NAME"), 2))
    d = dict(pairs)
    return d.get("a"), "b" in d
''', env_open=True)
    a, b = value
    assert isinstance(a, Unknown) and isinstance(b, Unknown)
    assert interp.stops == []


def test_a_module_subclass_built_with_keywords_not_known(tmp_path):
    # 0.5.10 rotary_embedding/factory.py: `YaRNScalingMRotaryEmbedding(head_size, ..., **extra_kwargs)`,
    # an nn.Module subclass whose __init__ is the tree's
    value, interp = run(tmp_path, '''
import torch

class YaRN(torch.nn.Module):
    def __init__(self, head_size, truncate=True, beta_fast=32):
        self.head_size, self.truncate = head_size, truncate

def main(extra):
    rope = YaRN(64, **extra)
    return rope.head_size, rope.truncate
''', args=(Unknown("extra_kwargs"),))
    head_size, truncate = value
    assert head_size == 64 and isinstance(truncate, Unknown)
    assert interp.stops == []


def test_a_msgspec_struct_built_with_keywords_not_known(tmp_path):
    # 0.5.23 sampling/watermarking/config.py: `class WatermarkServerConfig(msgspec.Struct, ...)`,
    # built by `WatermarkServerConfig(**raw)`
    value, interp = run(tmp_path, '''
import msgspec

class WatermarkServerConfig(msgspec.Struct, frozen=True, kw_only=True):
    key: str = None
    context_window: int = 4

def main(raw):
    config = WatermarkServerConfig(**raw)
    return isinstance(config, WatermarkServerConfig), config.context_window
''', args=(Unknown("raw"),))
    is_config, window = value
    assert is_config is True and isinstance(window, Unknown)
    assert interp.stops == []


def test_a_msgspec_structs_field_names(tmp_path):
    # 0.5.23 arg_groups/serving_hook.py: `{f"watermark_{field}": getattr(config, field) for field in
    # config.__struct_fields__ if getattr(config, field) is not None}` (rules/world.toml [values])
    value, interp = run(tmp_path, '''
import msgspec

class WatermarkServerConfig(msgspec.Struct, frozen=True, kw_only=True):
    key: str = None
    context_window: int = 4

def main():
    config = WatermarkServerConfig(context_window=8)
    return config.__struct_fields__, {f"watermark_{f}": getattr(config, f) for f in config.__struct_fields__
                                      if getattr(config, f) is not None}
''')
    assert value == (("key", "context_window"), {"watermark_context_window": 8})
    assert interp.stops == []


def test_hasattr_on_a_msgspec_struct_is_its_fields_and_class(tmp_path):
    # 0.5.20+ ServerArgs is a msgspec Struct: `getattr(self, "_resolution_finished", False)` is
    # False until the resolution sets it, never a truth not known (which would make every
    # rejection of the resolution a possible one)
    value, interp = run(tmp_path, '''
import msgspec

class ServerArgs(msgspec.Struct):
    tp_size: int = 1

def main():
    args = ServerArgs()
    return hasattr(args, "tp_size"), hasattr(args, "_resolution_finished"), getattr(args, "_failed", False)
''')
    assert value == (True, False, False)
    assert interp.stops == []
