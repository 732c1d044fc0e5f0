"""report: the flag inventory as text."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from flagscan.facts.flags import Flag, Inventory, UnknownValue


def _show(value: Any) -> str:
    if isinstance(value, UnknownValue):
        return f"<unknown: {value.text}>"
    return json.dumps(value, default=str)


def render(flags: Iterable[Flag], inventory: Inventory, sglang: dict[str, Any]) -> str:
    flags = list(flags)
    lines = [f"sglang {sglang.get('version') or sglang.get('revision')}: {len(flags)} flags"
             f" (abbreviations {'allowed' if inventory.allow_abbrev else 'off'})"]
    for f in flags:
        head = ", ".join(f.options)
        bits = []
        if f.takes_value:
            bits.append(f"type={f.type or 'str'}")
            if f.nargs is not None:
                bits.append(f"nargs={f.nargs}")
        else:
            bits.append(f.action)
        bits.append(f"default={_show(f.default)}")
        if f.choices is not None:
            bits.append(f"choices={_show(list(f.choices)) if isinstance(f.choices, tuple) else _show(f.choices)}")
        if f.required:
            bits.append("required")
        if f.deprecated:
            bits.append("DEPRECATED" + (f" -> {f.replacement}" if f.replacement else ""))
        lines.append(f"  {head}  [{f.dest}] {' '.join(bits)}  ({f.location})")
    for note in inventory.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)
