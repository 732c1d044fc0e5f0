"""compare_inventory.compare() on tiny hand-made inputs, and the committed ground truth's shape."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare_inventory import compare, normalize_action  # noqa: E402

GT_DIR = HERE.parent / "data" / "groundtruth" / "inventory"


def _gt(*actions, allow_abbrev=True):
    return {"sglang": "9.9.9", "prog_parser": {"allow_abbrev": allow_abbrev, "config_option": "--config"},
            "actions": list(actions)}


def _act(options, dest, default=None, choices=None, action="store", nargs=None, const=None,
         required=False, type="str"):
    return {"options": options, "dest": dest, "default": default, "choices": choices,
            "action": action, "nargs": nargs, "const": const, "required": required, "type": type}


def _flag(options, dest, **kw):
    base = {"dest": dest, "options": options, "type": "str", "default": None, "choices": None,
            "action": "store", "nargs": None, "const": None, "required": False, "help": "",
            "deprecated": False, "replacement": None, "semantics": "store",
            "location": "sglang/srt/server_args.py:1"}
    base.update(kw)
    return base


def _fs(*flags, allow_abbrev=True):
    return {"flags": list(flags), "allow_abbrev": allow_abbrev, "config_option": "--config", "notes": []}


def test_identical_inventories_agree_exactly():
    gt = _gt(_act(["--tp-size", "--tp"], "tp_size", default=1, type="int"),
             _act(["--attention-backend"], "attention_backend", choices=["triton", "fa3"]),
             _act(["--enable-foo"], "enable_foo", default=False, action="store_true", nargs=0,
                  const=True, type=None))
    fs = _fs(_flag(["--tp-size", "--tp"], "tp_size", default=1, type="int"),
             _flag(["--attention-backend"], "attention_backend", choices=["fa3", "triton"]),
             _flag(["--enable-foo"], "enable_foo", default=False, action="store_true", nargs=0,
                   const=True, type=None))
    result = compare(fs, gt)
    assert result["summary"]["exact"], result
    assert result["summary"]["option_coverage"] == 1.0
    assert result["mismatches"] == [] and result["unknowns"] == []
    assert result["summary"]["fields"]["choices"] == {"agree": 3, "mismatch": 0, "unknown": 0}  # order-insensitive


def test_mismatch_is_detected():
    gt = _gt(_act(["--mem-fraction-static"], "mem_fraction_static", default=None, type="float"),
             _act(["--tp-size", "--tp"], "tp_size", default=1, type="int"))
    fs = _fs(_flag(["--mem-fraction-static"], "mem_fraction_static", default=0.9, type="float"),
             _flag(["--tp-size", "--tp"], "tp_size", default=True, type="int"))  # True is not 1
    result = compare(fs, gt)
    fields = {(m["dest"], m["field"]) for m in result["mismatches"]}
    assert ("mem_fraction_static", "default") in fields
    assert ("tp_size", "default") in fields
    assert result["summary"]["fields"]["default"]["mismatch"] == 2
    assert not result["summary"]["exact"]


def test_unknown_is_counted_as_unknown_not_mismatch():
    gt = _gt(_act(["--sampling-backend"], "sampling_backend", choices=["flashinfer", "pytorch"]))
    fs = _fs(_flag(["--sampling-backend"], "sampling_backend",
                   choices={"unknown": "SAMPLING_BACKEND_CHOICES"}))
    result = compare(fs, gt)
    assert result["summary"]["fields"]["choices"] == {"agree": 0, "mismatch": 0, "unknown": 1}
    assert result["summary"]["unknown"] == 1
    assert result["unknowns"][0]["text"] == "SAMPLING_BACKEND_CHOICES"
    assert result["mismatches"] == []


def test_missing_and_extra_options_and_alias_groups():
    gt = _gt(_act(["--tp-size", "--tp"], "tp_size", default=1, type="int"),
             _act(["--only-in-sglang"], "only_in_sglang"))
    fs = _fs(_flag(["--tp-size"], "tp_size", default=1, type="int"),
             _flag(["--only-in-flagscan"], "only_in_flagscan"))
    result = compare(fs, gt)
    assert result["missing_in_flagscan"] == ["--only-in-sglang", "--tp"]
    assert result["extra_in_flagscan"] == ["--only-in-flagscan"]
    assert result["summary"]["fields"]["options"]["mismatch"] == 1


def test_action_names_are_normalized():
    assert normalize_action("argparse._StoreTrueAction") == "store_true"
    assert normalize_action("_StoreConstAction") == "store_const"
    assert normalize_action("sglang.srt.server_args.DeprecatedAction") == "DeprecatedAction"
    gt = _gt(_act(["--x"], "x", action="DeprecatedAction", nargs=0, type=None),
             _act(["--j"], "j", type="loads"))
    fs = _fs(_flag(["--x"], "x", action="DeprecatedAction", nargs=0, type=None),
             _flag(["--j"], "j", type="json.loads"))
    assert compare(fs, gt)["summary"]["exact"]


def test_parser_allow_abbrev_disagreement_is_reported():
    gt = _gt(_act(["--x"], "x"), allow_abbrev=True)
    fs = _fs(_flag(["--x"], "x"), allow_abbrev=False)
    result = compare(fs, gt)
    assert result["parser"]["allow_abbrev"]["agree"] is False
    assert not result["summary"]["exact"]


@pytest.mark.parametrize("path", sorted(GT_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_committed_groundtruth_is_well_formed(path):
    data = json.loads(path.read_text())
    assert path.stat().st_size < 1024 * 1024
    assert data["sglang"] == path.stem
    assert isinstance(data["prog_parser"]["allow_abbrev"], bool)
    options = [o for a in data["actions"] for o in a["options"]]
    assert len(options) == len(set(options))
    assert "--model-path" in options and "-h" not in options
    for action in data["actions"]:
        assert set(action) >= {"options", "dest", "default", "choices", "action", "nargs",
                               "const", "required", "type", "help"}
    # A ground-truth inventory compared with itself (as flagscan JSON) agrees exactly.
    as_flagscan = {"flags": [dict(a) for a in data["actions"]],
                   "allow_abbrev": data["prog_parser"]["allow_abbrev"],
                   "config_option": data["prog_parser"]["config_option"]}
    assert compare(as_flagscan, data)["summary"]["exact"]
