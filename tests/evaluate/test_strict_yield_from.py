"""`yield from` in a generator being iterated, under FLAGSCAN_STRICT=1 (a give-up fails the test
with GaveUp). The shape is sglang/srt/model_loader/loader.py's DefaultModelLoader._get_all_weights:
`yield from self._get_weights_iterator(primary_weights)`, then one `yield from` per secondary
source in a loop."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import options, run

pytestmark = pytest.mark.usefixtures("strict")


def test_yield_from_yields_every_element_of_the_inner_iterable_in_order(tmp_path):
    value, interp = run(tmp_path, '''
class Loader:
    def _get_weights_iterator(self, source):
        for name in source:
            yield (name, len(name))

    def _get_all_weights(self, primary, secondary):
        yield from self._get_weights_iterator(primary)
        for source in secondary:
            yield from self._get_weights_iterator(source)
        yield from ["tail"]

def main():
    return list(Loader()._get_all_weights(["embed", "lm_head"], [["draft"]]))
''')
    assert value == [("embed", 5), ("lm_head", 7), ("draft", 5), "tail"]
    assert interp.stops == []


def test_yield_from_an_iterable_not_known_makes_the_elements_unknown(tmp_path):
    value, interp = run(tmp_path, '''
import os

def weights():
    yield "first"
    yield from os.environ.get("NAMES")

def main():
    return [w for w in weights()]
''', env_open=True)
    assert options(value) is None
    assert interp.stops == []
