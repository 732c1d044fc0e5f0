"""Compare flagscan's flag inventory with SGLang's own parser (ground truth).

``compare(flagscan_inventory_json, groundtruth)`` is a pure function:

* ``flagscan_inventory_json`` is ``Inventory.to_json()`` (flagscan/facts/flags.py):
  ``{"flags": [{"dest", "options", "type", "default", "choices", "action",
  "nargs", "const", "required", ...}], "allow_abbrev", "config_option"}``; a value
  flagscan could not compute is ``{"unknown": "<source text>"}``.
* ``groundtruth`` is a file written by ``dump_inventory.py``
  (``tests/data/groundtruth/inventory/<version>.json``).

Flags are matched by option string. For every matched flag each field is
counted as ``agree``, ``mismatch`` or ``unknown`` (flagscan said Unknown: not a
mismatch). Run as a script to print a summary::

    python tests/differential/compare_inventory.py flagscan.json tests/data/groundtruth/inventory/0.5.10.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

FIELDS = ("dest", "default", "choices", "action", "nargs", "const", "required", "type")

# argparse's built-in action classes by class name -> registry name.
_ARGPARSE_CLASS_TO_NAME = {
    "_StoreAction": "store",
    "_StoreConstAction": "store_const",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_AppendAction": "append",
    "_AppendConstAction": "append_const",
    "_CountAction": "count",
    "_HelpAction": "help",
    "_VersionAction": "version",
    "_ExtendAction": "extend",
    "_SubParsersAction": "parsers",
}


def normalize_action(name: Any) -> Any:
    """``argparse._StoreTrueAction`` / ``_StoreTrueAction`` / ``store_true`` -> ``store_true``;
    custom classes keep their bare class name (``sglang...DeprecatedAction`` -> ``DeprecatedAction``)."""
    if not isinstance(name, str):
        return name
    bare = name.rsplit(".", 1)[-1]
    return _ARGPARSE_CLASS_TO_NAME.get(bare, bare)


def is_unknown(value: Any) -> bool:
    """A flagscan value that is, or contains, ``{"unknown": text}``."""
    if isinstance(value, dict):
        if set(value) == {"unknown"}:
            return True
        return any(is_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(is_unknown(v) for v in value)
    return False


def _unknown_text(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"unknown"}:
        return str(value["unknown"])
    return json.dumps(value, sort_keys=True, default=str)


def _canon(value: Any) -> Any:
    """A hashable, type-aware canonical form (True != 1, 1 == 1.0, tuple == list)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", float(value))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_canon(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _canon(v)) for k, v in value.items())))
    return ("val", value)


def normalize_type(name: Any) -> Any:
    """``json.loads`` (source text) and ``loads`` (the callable's ``__name__``) are one type."""
    if isinstance(name, str):
        return name.rsplit(".", 1)[-1]
    return name


def values_equal(field: str, fs: Any, gt: Any) -> bool:
    if field == "action":
        return normalize_action(fs) == normalize_action(gt)
    if field == "type":
        return normalize_type(fs) == normalize_type(gt)
    if field == "choices":
        if fs is None or gt is None:
            return fs is None and gt is None
        if not isinstance(fs, (list, tuple)) or not isinstance(gt, (list, tuple)):
            return _canon(fs) == _canon(gt)
        return Counter(_canon(v) for v in fs) == Counter(_canon(v) for v in gt)
    if field == "required":
        return bool(fs) == bool(gt)
    return _canon(fs) == _canon(gt)


def compare(flagscan_inventory_json: dict, groundtruth: dict) -> dict:
    fs_flags = list(flagscan_inventory_json.get("flags", []))
    gt_actions = [a for a in groundtruth.get("actions", []) if a.get("options")]

    fs_by_opt: dict[str, dict] = {}
    for flag in fs_flags:
        for opt in flag.get("options", []):
            fs_by_opt.setdefault(opt, flag)
    gt_by_opt: dict[str, dict] = {}
    for action in gt_actions:
        for opt in action["options"]:
            gt_by_opt.setdefault(opt, action)

    missing = sorted(set(gt_by_opt) - set(fs_by_opt))
    extra = sorted(set(fs_by_opt) - set(gt_by_opt))

    fields = {f: {"agree": 0, "mismatch": 0, "unknown": 0} for f in FIELDS + ("options",)}
    mismatches: list[dict[str, Any]] = []
    unknowns: list[dict[str, Any]] = []
    matched = 0
    for action in gt_actions:
        flag = next((fs_by_opt[o] for o in action["options"] if o in fs_by_opt), None)
        if flag is None:
            continue
        matched += 1
        opt = action["options"][0]
        # Same alias group: every option string of this action on one flagscan flag.
        if sorted(flag.get("options", [])) == sorted(action["options"]):
            fields["options"]["agree"] += 1
        else:
            fields["options"]["mismatch"] += 1
            mismatches.append({"option": opt, "dest": action["dest"], "field": "options",
                               "flagscan": list(flag.get("options", [])),
                               "groundtruth": list(action["options"])})
        for field in FIELDS:
            if field not in flag:
                continue  # flagscan did not report this field at all
            fs_value, gt_value = flag[field], action.get(field)
            if is_unknown(fs_value):
                fields[field]["unknown"] += 1
                unknowns.append({"option": opt, "dest": action["dest"], "field": field,
                                 "text": _unknown_text(fs_value), "groundtruth": gt_value})
            elif values_equal(field, fs_value, gt_value):
                fields[field]["agree"] += 1
            else:
                fields[field]["mismatch"] += 1
                mismatches.append({"option": opt, "dest": action["dest"], "field": field,
                                   "flagscan": fs_value, "groundtruth": gt_value})

    prog = groundtruth.get("prog_parser", {})
    parser = {}
    if "allow_abbrev" in flagscan_inventory_json:
        parser["allow_abbrev"] = {
            "flagscan": flagscan_inventory_json.get("allow_abbrev"),
            "groundtruth": prog.get("allow_abbrev", True),
            "agree": bool(flagscan_inventory_json.get("allow_abbrev")) == bool(prog.get("allow_abbrev", True)),
        }
    if "config_option" in flagscan_inventory_json and "config_option" in prog:
        parser["config_option"] = {
            "flagscan": flagscan_inventory_json.get("config_option"),
            "groundtruth": prog.get("config_option"),
            "agree": flagscan_inventory_json.get("config_option") == prog.get("config_option"),
        }

    gt_options = len(gt_by_opt)
    decided = sum(v["agree"] + v["mismatch"] for v in fields.values())
    agreed = sum(v["agree"] for v in fields.values())
    summary = {
        "sglang": groundtruth.get("sglang"),
        "groundtruth_options": gt_options,
        "flagscan_options": len(fs_by_opt),
        "groundtruth_flags": len(gt_actions),
        "flagscan_flags": len(fs_flags),
        "matched_flags": matched,
        "missing_in_flagscan": len(missing),
        "extra_in_flagscan": len(extra),
        "option_coverage": (gt_options - len(missing)) / gt_options if gt_options else 1.0,
        "mismatches": len(mismatches),
        "unknown": len(unknowns),
        "field_agreement": agreed / decided if decided else 1.0,
        "fields": fields,
        "exact": not missing and not extra and not mismatches
        and all(p["agree"] for p in parser.values()),
    }
    return {
        "summary": summary,
        "missing_in_flagscan": missing,
        "extra_in_flagscan": extra,
        "mismatches": mismatches,
        "unknowns": unknowns,
        "parser": parser,
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2:
        print("usage: compare_inventory.py FLAGSCAN_INVENTORY.json GROUNDTRUTH.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        fs = json.load(f)
    with open(argv[1]) as f:
        gt = json.load(f)
    result = compare(fs, gt)
    print(json.dumps(result, indent=1, default=str))
    return 0 if result["summary"]["exact"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
