"""Writes the interpreter cannot pin down make what they may have touched unknown."""

from __future__ import annotations

import re

import pytest

from flagscan.evaluate.interp.values import Maybe, Unknown
from flagscan.strict import GaveUp
from tests.evaluate.helpers import options, run

ENV = {"env_open": True}


def test_a_store_under_an_unknown_key_may_have_replaced_any_entry(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    d = {"a": 1}
    d[os.environ.get("K")] = 5
    return d["a"], d.get("b"), "b" in d
''', **ENV)
    a, b, has_b = value
    assert options(a) == {1, 5}          # was 1, certain
    assert options(b) is None            # was None, certain
    assert isinstance(has_b, Unknown)    # was False, certain
    assert "env:K" in a.needs


def test_update_and_setdefault_with_unknown_keys_open_the_dict(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    d = {"a": 1}
    e = {"a": 1}
    d.update({os.environ.get("K"): 2})
    e.setdefault(os.environ.get("K"), 3)
    return d["a"], len(e)
''', **ENV)
    assert isinstance(value[0], Unknown)   # was 1, certain: the update may have replaced it
    assert options(value[1]) is None      # was 1, certain


def test_a_store_at_an_unknown_list_index_may_have_replaced_any_element(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    items = [1, 2]
    items[int(os.environ.get("I"))] = 9
    return items
''', **ENV)
    assert [options(v) for v in value] == [{1, 9}, {2, 9}]


def test_a_ternary_on_an_unknown_test_runs_each_side_on_its_own_path(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    seen = []
    t = os.environ.get("X")
    picked = seen.append(1) if t else 2
    return seen, 1 if t else 2
''', **ENV)
    seen, picked = value
    assert len(seen) == 1 and isinstance(seen[0], Maybe)   # was [1]: the append ran on both paths
    assert options(picked) == {1, 2} and "env:X" in picked.needs


def test_a_loop_over_an_unknown_iterable_may_run_any_number_of_times(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    n = 0
    for _ in os.environ.get("L"):
        n = n + 1
    return n, n > 3
''', **ENV)
    n, big = value
    assert options(n) is None and isinstance(big, Unknown)   # was n in {0, 1} and n > 3 certain False


def test_an_outside_attribute_written_reads_back_what_was_written(tmp_path):
    value, _ = run(tmp_path, '''
import torch
def main():
    torch.backends.flag_for_test = 7
    return torch.backends.flag_for_test
''')
    assert value == 7


@pytest.mark.gives_up
def test_a_write_through_an_object_not_followed_is_a_stop(tmp_path):
    value, interp = run(tmp_path, '''
def main():
    holder = (lambda: 1)
    holder.attr = 2
    return 1
''')
    assert value == 1
    assert [(s.location, s.construct.split(" on ")[0]) for s in interp.stops] == [
        ("sglang/srt/mod.py:4", "attribute write .attr")]


def test_strict_mode_raises_where_the_interpreter_gives_up(tmp_path, monkeypatch):
    source = '''
def gen():
    total = 1 + (yield from [1])

def main():
    return list(gen())
'''
    monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)
    _, interp = run(tmp_path / "a", source)
    assert [s.location for s in interp.stops] == ["sglang/srt/mod.py:3"]
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    with pytest.raises(GaveUp, match=re.escape("analysis stopped at sglang/srt/mod.py:3")):
        run(tmp_path / "b", source)


def test_a_fact_not_given_is_not_a_give_up(tmp_path, monkeypatch):
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    value, interp = run(tmp_path, '''
import os
def main():
    return 1 if os.environ.get("X") else 2
''', **ENV)
    assert options(value) == {1, 2} and interp.stops == []


def test_a_new_list_made_on_each_side_of_a_branch_is_still_a_new_list(tmp_path):
    # 0.5.23 memory_pool.py: `self.k_buffer` is a comprehension over values not known on either
    # side of a branch; after the join a store into it reached "a value not known" and gave up
    value, interp = run(tmp_path, '''
import os
def main():
    if os.environ.get("A"):
        bufs = [b for b in os.environ.get("X")]
    else:
        bufs = [b for b in os.environ.get("Y")]
    bufs[0] = 1
    return bufs
''', **ENV)
    assert not interp.stops
    assert isinstance(value, Unknown) and value.options is None


def test_setdefault_under_an_unknown_key_on_an_empty_dict_gives_a_new_container(tmp_path):
    # 0.5.14 deepseek_v4.py's weight loop: `bucket = cache.setdefault(param_name, {})` then
    # `bucket[shard] = w`; the store into the result gave up on a value not known
    value, interp = run(tmp_path, '''
def main(weights):
    cache = {}
    for name in weights:
        bucket = cache.setdefault(name + ".fused", {})
        bucket["q"] = 1
        full = len(bucket) == 2
    return full, cache
''', args=(Unknown("the checkpoint's weights"),))
    full, cache = value
    assert not interp.stops
    assert isinstance(full, Unknown)   # an earlier pass may have filled the bucket: not a certain False
    assert isinstance(cache, dict)




def test_a_comprehension_over_a_fact_not_given_needs_that_fact(tmp_path, monkeypatch):
    # 0.5.23 mm_utils.py: `[item for item in mm_inputs.mm_items if item.is_modality(...)]` over a
    # batch's items: the new list, and what is read from it, are facts of the batch. A store into
    # an element (mm_schedule.py's `item.model_specific_data[KEY] = True`) is then a store into a
    # value that stands for a fact not given, not a give-up.
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    batch = Unknown("the batch", {"batch:forward_batch"})
    value, interp = run(tmp_path, '''
def main(batch):
    items = [item for item in batch.items if item.kept]
    names = {item.name for item in batch.items}
    keyed = {item.name: item for item in batch.items}
    for item in items:
        item.data["k"] = True
    return items, names, keyed["x"], [i for i in range(3) if i in batch.ids]
''', args=(batch,))
    items, names, entry, filtered = value
    assert {"batch:forward_batch"} <= items.needs and {"batch:forward_batch"} <= names.needs
    assert {"batch:forward_batch"} <= entry.needs and {"batch:forward_batch"} <= filtered.needs
    assert interp.stops == []


def test_a_key_holding_values_not_known_may_be_any_equal_key(tmp_path, monkeypatch):
    # 0.5.20 mm_schedule.py: `cache_key = (item.hash, n)` with the item a batch's; Python compares
    # tuples part by part, so such a key may equal a key the dict holds: `in` is not known, a
    # store may have replaced that entry, a read may be its value (not a certain KeyError)
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    batch = Unknown("the batch", {"batch:forward_batch"})
    value, interp = run(tmp_path, '''
def main(batch):
    d = {("a", 1): "x"}
    key = (batch.name, 1)
    found = key in d
    other = (batch.name, 2) in d
    read = d[(batch.name, 1)]
    d[key] = "y"
    same = {key: 5}[key]
    return found, other, read, d[("a", 1)], same
''', args=(batch,))
    found, other, read, entry, same = value
    assert isinstance(found, Unknown) and "batch:forward_batch" in found.needs   # was False, certain
    assert other is False                 # the known part differs: no key may equal it
    assert isinstance(read, Unknown) and "batch:forward_batch" in read.needs     # was a certain KeyError
    assert options(entry) == {"x", "y"}   # was "x", certain
    assert same == 5                      # the very same key finds its entry
    assert interp.stops == []


def test_a_comprehension_over_elements_present_on_some_paths_reads_each_as_it_is(tmp_path, monkeypatch):
    # 0.5.20 mm_schedule.py: `miss_items = [unique_misses[key][0] for key in list(unique_misses)]`
    # where the loop before may or may not have added the key: the key is the one written, and the
    # item made from it is present on the same paths
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    batch = Unknown("the batch", {"batch:forward_batch"})
    value, interp = run(tmp_path, '''
def main(batch):
    found = {}
    for item in batch.items:
        found[("k", 1)] = (item, 2)
    items = [found[key][0] for key in list(found.keys())]
    first = items[0]
    first.data["seen"] = True
    return items, first
''', args=(batch,))
    items, first = value
    assert len(items) == 1 and isinstance(items[0], Maybe)   # present on the paths that looped
    assert "batch:forward_batch" in items[0].value.needs
    assert "batch:forward_batch" in first.needs   # read at its position: the item, not "some element"
    assert interp.stops == []


def test_a_list_position_after_elements_on_some_paths_is_one_of_the_later_elements(tmp_path):
    value, _ = run(tmp_path, '''
import os
def main():
    items = []
    if os.environ.get("A"):
        items.append("a")
    items.append("b")
    items.append("c")
    return items[0], items[1], items[-1]
''', **ENV)
    first, second, last = value
    assert options(first) == {"a", "b", "c"}   # was the Maybe, a value with no options
    assert options(second) == {"b", "c"}       # was "b", certain
    assert last == "c"


def test_star_arguments_not_known_bind_each_parameter_to_an_element(tmp_path, monkeypatch):
    # 0.5.10 deepseek_v2.py forward_core: `self.forward_normal_core(*inner_state)`, the tuple of
    # whichever prepare function ran: each parameter is an element (or the default), and the
    # function is followed
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    batch = Unknown("the batch", {"batch:forward_batch"})
    value, interp = run(tmp_path, '''
SEEN = []

def core(a, b, c=3, *rest, flag=False):
    SEEN.append(a)
    return a, b, c, rest, flag

def main(batch):
    state = batch.prepared
    handlers = dict[int, str]()
    handlers[1] = "x"
    return core(*state), len(SEEN), handlers[1]
''', args=(batch,))
    (a, b, c, rest, flag), seen, handler = value
    assert all(isinstance(v, Unknown) and "batch:forward_batch" in v.needs for v in (a, b, c, rest))
    assert flag is False and seen == 1        # the function ran (was: not followed)
    assert handler == "x"                     # a generic alias's call is its origin's
    assert interp.stops == []


def test_torch_dtypes_of_different_names_are_different_objects_in_a_membership_test(tmp_path):
    # rules/world.toml [distinct]: torch's dtypes, whose other names are given as `same:`
    value, _ = run(tmp_path, '''
import torch
import numpy
def main():
    kv = torch.float8_e4m3fnuz
    return (kv in (torch.float8_e5m2, torch.float8_e4m3fn), torch.float16 in (torch.half,),
            torch.float32 in [torch.float], numpy.float16 in (numpy.half,))
''')
    fnuz, half, single, other = value
    assert fnuz is False and half is True and single is True
    assert isinstance(other, Unknown)   # outside those prefixes another path may name the same object
