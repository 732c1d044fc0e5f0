"""diffing: two flag inventories -> flags added, removed, renamed, and changed field by field."""

from __future__ import annotations

from typing import Any

from flagscan.diffing.model import FlagChanges
from flagscan.facts.flags import Flag, Inventory, UnknownValue

# Fields compared for a dest present in both revisions, in report order.
FIELDS = ("type", "default", "choices", "action", "nargs", "required", "deprecated", "replacement")


def _plain(value: Any) -> Any:
    if isinstance(value, UnknownValue):
        return {"unknown": value.text}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _primary(inventory: Inventory) -> dict[str, Flag]:
    """Per dest, the flag that defines it: the first non-deprecated registration, else the first."""
    out: dict[str, Flag] = {}
    for flag in inventory.flags:
        current = out.get(flag.dest)
        if current is None or (current.deprecated and not flag.deprecated):
            out[flag.dest] = flag
    return out


def _field(flag: Flag, name: str) -> Any:
    value = getattr(flag, name)
    if name == "choices" and isinstance(value, tuple):
        return sorted((_plain(v) for v in value), key=repr)
    return _plain(value)


def diff_flags(old: Inventory, new: Inventory) -> FlagChanges:
    a, b = _primary(old), _primary(new)
    old_opts, new_opts = old.by_option(), new.by_option()
    renamed: list[dict[str, str]] = []
    for option, flag in new_opts.items():
        before = old_opts.get(option)
        replacement = flag.replacement
        if flag.deprecated and before is not None and not before.deprecated and replacement \
                and replacement in new_opts \
                and (replacement not in old_opts or old_opts[replacement].deprecated):
            renamed.append({"from": option, "to": replacement})
    renamed_from = {r["from"] for r in renamed}
    renamed_dests = {new_opts[r["from"]].dest for r in renamed}
    # Option renames carry "from"/"to" options; setting renames (below) carry "kind": "dest".
    changed = []
    for dest in a.keys() & b.keys():
        for name in FIELDS:
            if dest in renamed_dests and name in ("action", "deprecated", "replacement"):
                continue  # said once, as the rename
            x, y = _field(a[dest], name), _field(b[dest], name)
            if x != y:
                changed.append({"dest": dest, "field": name, "old": x, "new": y})
    for option in sorted(old_opts.keys() & new_opts.keys()):
        before, after = old_opts[option], new_opts[option]
        if after.deprecated and not before.deprecated and option not in renamed_from \
                and b.get(after.dest) is not after:
            changed.append({"dest": after.dest, "field": "deprecated", "option": option, "old": False, "new": True,
                            "replacement": after.replacement})
    changed.sort(key=lambda c: (c["dest"], FIELDS.index(c["field"]), c.get("option", "")))
    added, removed = set(b.keys() - a.keys()), set(a.keys() - b.keys())
    for dest in sorted(removed):
        # Same options, new destination (`--tp-size`: tensor_parallel_size -> tp_size): the
        # command line is unaffected, so this is a rename of the setting, not a removal.
        options = a[dest].options
        targets = {new_opts[o].dest for o in options if o in new_opts}
        if len(targets) == 1 and all(o in new_opts for o in options) and (new_dest := targets.pop()) in added:
            renamed.append({"from": dest, "to": new_dest, "kind": "dest"})
            added.discard(new_dest)
            removed.discard(dest)
    return FlagChanges(
        added=tuple(sorted(added)),
        removed=tuple(sorted(removed)),
        renamed=tuple(sorted(renamed, key=lambda r: (r.get("kind", "option"), r["from"]))),
        changed=tuple(changed),
        options_added=tuple(sorted(new_opts.keys() - old_opts.keys())),
        options_removed=tuple(sorted(old_opts.keys() - new_opts.keys())),
    )
