"""A lambda's parameters are bound as a function's are (by position, by keyword, or their
defaults): SGLang's models build their layers with `make_layers(n, lambda idx, prefix: ...)`,
which calls `layer_fn(idx=idx, prefix=...)`, so each layer knows its index. A typing.NamedTuple
is a record: its fields are its annotations, given by position or keyword, or their defaults. A
starred target takes, as a list, what the other targets leave (`*batch, mn, k = shape`). An
IntEnum's member built from a tuple is the int the tuple makes (`DeepSeekV3 = (2,)` is 2), and
equals it."""

from __future__ import annotations

from tests.evaluate.helpers import run

LAMBDAS = '''
def make(n, layer_fn):
    return [layer_fn(idx=i, prefix=f"layers.{i}") for i in range(n)]


def main():
    by_keyword = make(3, lambda idx, prefix: (idx, prefix))
    with_default = (lambda a, b=7, *rest, c=1, **kw: (a, b, rest, c, kw))(1, 2, 3, c=4, d=5)
    defaults = (lambda a, b=7: (a, b))(a=0)
    return by_keyword, with_default, defaults
'''

RECORDS = '''
from typing import NamedTuple, Optional


class Output(NamedTuple):
    hidden: int
    scale: Optional[int]
    topk: str = "standard"

    @property
    def format(self):
        return "STANDARD"


def main():
    by_keyword = Output(hidden=1, scale=None, topk="bypassed")
    by_position = Output(2, 3)
    return (by_keyword.topk, by_keyword.hidden, by_keyword.scale, by_position.topk, by_position.scale,
            isinstance(by_position, Output), by_position.format)
'''


def test_a_lambda_binds_keyword_arguments_and_defaults(tmp_path) -> None:
    value, _ = run(tmp_path, LAMBDAS)
    assert value == ([(0, "layers.0"), (1, "layers.1"), (2, "layers.2")], (1, 2, (3,), 4, {"d": 5}), (0, 7))


def test_a_named_tuple_keeps_its_fields(tmp_path) -> None:
    value, _ = run(tmp_path, RECORDS)
    assert value == ("bypassed", 1, None, "standard", 3, True, "STANDARD")


STARRED = '''
def main():
    *batch, mn, k = (2, 3, 4, 5)
    first, *rest = [1, 2, 3]
    a, *mid, b = (1, 2)
    for x, *ys in [(1, 2, 3)]:
        pass
    return batch, mn, k, first, rest, a, mid, b, x, ys
'''


def test_a_starred_target_takes_what_the_others_leave(tmp_path) -> None:
    value, interp = run(tmp_path, STARRED)
    assert value == ([2, 3], 4, 5, 1, [2, 3], 1, [], 2, 1, [2, 3])
    assert interp.stops == []


ENUMS = '''
from enum import Enum, IntEnum


class Routing(IntEnum):
    Default = (0,)
    DeepSeekV3 = (2,)
    Unspecified = 9


class Plain(Enum):
    A = (1, 2)


def main():
    return (int(Routing.DeepSeekV3), Routing.DeepSeekV3 == 2, 2 != Routing.DeepSeekV3, int(Routing.Unspecified),
            Plain.A.value, Plain.A == (1, 2), Routing.Default.value)
'''


def test_an_int_enum_member_built_from_a_tuple_is_its_int(tmp_path) -> None:
    value, interp = run(tmp_path, ENUMS)
    # a plain Enum's member keeps its tuple and equals no tuple
    assert value == (2, True, False, 9, (1, 2), False, 0)
    assert interp.stops == []


MAPPING_PROXY = '''
from types import MappingProxyType


def skipped(prefix, ignored, fused_mapping=MappingProxyType({})):
    name = prefix.split(".")[-1]
    if name in fused_mapping:
        return "fused"
    return any(i in prefix for i in ignored)


def main():
    return (skipped("layers.0.linear_attn.in_proj_b", ["layers.0.linear_attn.in_proj_b"]),
            skipped("layers.0.linear_attn.in_proj_z", ["layers.0.linear_attn.in_proj_b"]),
            skipped("layers.0.qkv_proj", [], MappingProxyType({"qkv_proj": ["q_proj"]})))
'''


def test_a_mapping_proxy_is_the_mapping_it_views(tmp_path) -> None:
    # SGLang's quantization.utils.is_layer_skipped defaults fused_mapping to MappingProxyType({});
    # an opaque proxy left `name in fused_mapping` unknown for every linear layer of a quantized model
    value, _ = run(tmp_path, MAPPING_PROXY)
    assert value == (True, False, "fused")
