"""`match` statements (0.5.14 models/deepseek_common/deepseek_weight_loader.py: `match nextn_conf:
case NextNEnabledConfig(nextn_layer_id=layer_id): ...`) run as the `if` chain Python runs: the
first case whose pattern matches and whose guard holds, with its captures bound
(flagscan/extract/match.py). Under FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp)."""

from __future__ import annotations

import ast

import pytest

from flagscan.evaluate.interp.values import Unknown
from flagscan.extract.lower import lower_source
from tests.evaluate.helpers import run

pytestmark = pytest.mark.usefixtures("strict")

LOADER = '''
from dataclasses import dataclass

@dataclass
class NextNEnabledConfig:
    nextn_layer_id: int

@dataclass
class NextNDisabledConfig:
    pass

def layers(conf, mode):
    match conf:
        case NextNEnabledConfig(nextn_layer_id=layer_id) if layer_id > 0:
            first = ("nextn", layer_id)
        case NextNEnabledConfig():
            first = ("nextn at 0", None)
        case _:
            first = ("none", None)
    match mode:
        case "fp8" | "fp4":
            second = "quantized"
        case None:
            second = "unset"
        case [head, *rest]:
            second = head
        case other:
            second = ("other", other)
    return first, second

def main():
    return (layers(NextNEnabledConfig(3), "fp8"), layers(NextNEnabledConfig(0), None),
            layers(NextNDisabledConfig(), "bf16"))
'''


def test_the_first_matching_case_runs_with_its_captures(tmp_path):
    value, interp = run(tmp_path, LOADER)
    assert value[0] == (("nextn", 3), "quantized")
    assert value[1] == (("nextn at 0", None), "unset")
    first, second = value[2]
    assert first == ("none", None)
    # "bf16" against a sequence pattern, which is not spelled out: that case (its capture not
    # known) or the capture after it, so not known
    assert isinstance(second, Unknown)
    assert interp.stops == []


def test_a_match_lowers_to_if_statements_whose_conditions_are_python():
    module = lower_source(LOADER, "sglang.srt.mod", "sglang/srt/mod.py", False)
    (layers,) = [s for s in module["body"] if s[0] == "def" and s[2]["name"] == "layers"]
    body = layers[2]["body"]
    assert [s[0] for s in body] == ["assign", "if", "assign", "if", "ret"]
    texts = []

    def walk(stmts):
        for s in stmts:
            if s[0] == "if":
                texts.append(s[5])
                walk(s[3])
                walk(s[4])
    walk(body)
    assert "isinstance(__match_subject_13, NextNEnabledConfig)" in texts[0]
    for text in texts:
        ast.parse(text, mode="eval")   # each reads as Python
