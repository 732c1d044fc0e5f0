"""Read the committed ground truth (pure Python; no SGLang, no torch).

    from tests.differential.groundtruth import load_inventory, load_resolution
    gt = load_resolution("0.5.10")
    case = gt["cases"]["qwen3.5-122b-a10b|rtx-pro-6000-serverx4|motivating-extra-buffer"]
    case["resolved"]["disable_piecewise_cuda_graph"]   # True
    case["error"]                                      # None, or {"type", "message", "location", "handler", ...}

``load_resolution`` expands the compact on-disk form (see README.md): list
references ``"@L<n>"`` are replaced by the lists, and every case gets full
``parsed`` and ``resolved`` dicts (``parsed_defaults`` + the case's own parsed
values, then its ``changed`` values). Fields in ``volatile_fields`` (the random
seed) are present but meaningless to compare.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "groundtruth"
MODELS = DATA / "models"


def _path(kind: str, version_or_path: str | Path) -> Path:
    p = Path(version_or_path)
    if p.suffix == ".json" and p.exists():
        return p
    return DATA / kind / f"{version_or_path}.json"


def load_inventory(version_or_path: str | Path) -> dict[str, Any]:
    return json.loads(_path("inventory", version_or_path).read_text())


def _deref(value: Any, lists: dict[str, list[Any]]) -> Any:
    if isinstance(value, str) and value.startswith("@L") and value in lists:
        return _deref(lists[value], lists)
    if isinstance(value, list):
        return [_deref(v, lists) for v in value]
    if isinstance(value, dict):
        return {k: _deref(v, lists) for k, v in value.items()}
    return value


def expand_case(case: dict[str, Any], defaults: dict[str, Any], lists: dict[str, list[Any]],
                steps: list[str]) -> dict[str, Any]:
    """Full ``parsed``/``resolved`` dicts; ``changed`` as {field: [before, after]};
    ``changed_by`` as {field: step name}; ``writes`` with step names."""
    case = _deref(case, lists)
    if "parsed" not in case:  # a harness error: nothing was recorded
        return case
    user = case["parsed"]
    parsed = dict(defaults)
    parsed.update(user)
    resolved = dict(parsed)
    changed, changed_by = {}, {}
    for field, (before, after, step) in case.get("changed", {}).items():
        resolved[field] = after
        changed[field] = [before, after]
        changed_by[field] = steps[step] if step is not None else None
    case["user_parsed"] = user
    case["parsed"] = parsed
    case["resolved"] = resolved
    case["changed"] = changed
    case["changed_by"] = changed_by
    case["writes"] = [[steps[i], field, value] for i, field, value in case.get("writes", [])]
    return case


def load_resolution(version_or_path: str | Path) -> dict[str, Any]:
    """The recorded resolutions of one release, with ``cases`` keyed by case id."""
    data = json.loads(_path("resolution", version_or_path).read_text())
    lists = data.get("lists", {})
    defaults = data.get("parsed_defaults", {})
    steps = data.get("steps", [])
    data["cases"] = {c["id"]: expand_case(c, defaults, lists, steps) for c in data["cases"]}
    return data


def argv_for(case: dict[str, Any]) -> list[str]:
    """The case's argv with ``<models>`` replaced by this checkout's model directory."""
    return [a.replace("<models>", str(MODELS)) for a in case["argv"]]
