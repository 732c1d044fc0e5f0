"""report: one setting as a readable decision tree (writes, reads with gates, what it steers, verdicts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flagscan.facts.render import conjunction

if TYPE_CHECKING:
    from flagscan.facts.flags import Inventory
    from flagscan.facts.graph import TreeReadsLike


def collect(tree_reads: TreeReadsLike, inventory: Inventory, dest: str) -> dict[str, Any]:
    """Plain facts about one setting (no evaluation): who writes it, who reads it, what it steers."""
    dests = {f.dest for f in inventory.flags}
    flag = next((f for f in inventory.flags if f.dest == dest), None)
    writes, reads, steers = [], [], []
    for rel, facts in sorted(tree_reads.files.items()):
        role = tree_reads.roles.get(rel)
        if role == "resolution":
            for w in facts.writes:
                if w.target == dest:
                    writes.append({"location": f"{facts.path}:{w.line}", "handler": w.function,
                                   "conditions": list(w.guards), "value": w.value})
                elif any(s.split(".")[-1] == dest for s in w.sources):
                    steers.append({"setting": w.target, "location": f"{facts.path}:{w.line}",
                                   "handler": w.function, "conditions": list(w.guards), "value": w.value})
        else:
            for r in facts.reads:
                if r.dest(dests) == dest:
                    reads.append({"location": r.location, "function": r.function or "<module>",
                                  "conditions": [g.shown for g in r.guards], "via": r.via})
    return {"flag": {"options": list(flag.options), "default": flag.default, "help": flag.help} if flag else None,
            "writes": writes, "reads": reads, "steers": steers}


def render(dest: str, facts: dict[str, Any], verdicts: dict[str, dict[str, Any]], version: str) -> str:
    lines = [f"{dest} (sglang {version})"]
    flag = facts.get("flag")
    if flag:
        lines.append(f"  options: {', '.join(flag['options'])}; default: {flag['default']!r}")
    lines.append(f"├─ set by resolution ({len(facts['writes'])} writes, in order)")
    for w in facts["writes"]:
        cond = conjunction(w["conditions"]) or "always"
        lines.append(f"│   ├─ {w['location']} in {w['handler']}: = {w['value']}")
        lines.append(f"│   │    when {cond[:240]}")
    lines.append(f"├─ read at run time ({len(facts['reads'])} reads)")
    for r in facts["reads"]:
        lines.append(f"│   ├─ {r['location']} in {r['function']}" + (f" (via {r['via']})" if r["via"] else ""))
        for c in r["conditions"]:
            lines.append(f"│   │    if {c[:200]}")
    lines.append(f"├─ steers ({len(facts['steers'])} writes of other settings depend on it)")
    for s in facts["steers"]:
        lines.append(f"│   ├─ {s['setting']} at {s['location']} in {s['handler']}")
    if verdicts:
        lines.append("└─ verdicts")
        for label, rep in verdicts.items():
            entry = rep["flags"][dest]
            lines.append(f"    ├─ {label}: {entry['status']}")
            for r in entry["reads"]:
                lines.append(f"    │    {r['location']}: {r['live']}"
                             + (f" because {'; '.join(r['dead_because'])}" if r.get("dead_because") else ""))
            for ev in entry.get("evidence", []):
                for n in ev.get("names", []):
                    lines.append(f"    │      {n['name']} = {n['value']}  ({n['location']}: {n['text'][:120]})")
                    for d in n.get("defined_by", []):
                        lines.append(f"    │        {d['name']} defined at {d['location']}: {d['text'][:120]}")
            if entry.get("needs"):
                lines.append(f"    │    needs: {', '.join(entry['needs'])}")
            for rej in entry.get("rejections", []):
                lines.append(f"    │    rejected at {rej['location']}: {rej['message'] or rej['condition']}")
    else:
        lines.append("└─ (give --gpu for a verdict)")
    return "\n".join(lines)
