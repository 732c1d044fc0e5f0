"""A key a known dict does not hold is a KeyError the analysed program raises and may catch, under
FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp).

The shape is sglang/srt/speculative/spec_info.py (0.5.5 on): register_speculative_algorithm
asks `SpeculativeAlgorithm.from_string(name)`, whose `cls._registry_by_name[name.upper()]`
raises KeyError (turned into ValueError) for a name not registered yet, and registers it in
the `except ValueError:` branch. Taken as a give-up, no algorithm but NONE was ever registered.
"""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import run

pytestmark = pytest.mark.usefixtures("strict")


def test_a_registry_filled_through_the_keyerror_of_its_own_lookup(tmp_path):
    value, interp = run(tmp_path, '''
class Algorithm:
    _registry_by_name = {}

    def __init__(self, name):
        self.name = name

    @classmethod
    def register(cls, name, aliases=()):
        algorithm = cls(name)
        cls._registry_by_name[name] = algorithm
        for alias in aliases:
            cls._registry_by_name[alias.upper()] = algorithm
        return algorithm

    @classmethod
    def from_string(cls, name):
        try:
            return cls._registry_by_name[name.upper()]
        except KeyError as exc:
            raise ValueError(f"Unknown speculative algorithm '{name}'") from exc

def register_algorithm(name, aliases=()):
    try:
        algorithm = Algorithm.from_string(name)
        exists = True
    except ValueError:
        algorithm = Algorithm.register(name.upper(), aliases)
        exists = False
    return algorithm, exists

Algorithm.register("NONE")
EAGLE, EAGLE_EXISTED = register_algorithm("EAGLE", aliases=("NEXTN",))

def main():
    return (EAGLE_EXISTED, Algorithm.from_string("nextn").name, sorted(Algorithm._registry_by_name),
            Algorithm.from_string("NONE").name)
''')
    assert value == (False, "EAGLE", ["EAGLE", "NEXTN", "NONE"], "NONE")
    assert interp.stops == []


def test_an_index_past_a_known_list_raises_index_error(tmp_path):
    value, interp = run(tmp_path, '''
def main():
    items = [1, 2]
    try:
        return items[2]
    except IndexError:
        return "IndexError"
''')
    assert value == "IndexError"
    assert interp.stops == []
