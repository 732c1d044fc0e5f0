"""report: a revision diff as text (terminal) and as markdown (a pull-request comment)."""

from __future__ import annotations

import json
from typing import Any


def _v(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 70 else text[:67] + "..."


def _name(sglang: dict[str, Any]) -> str:
    return str(sglang.get("version") or sglang.get("revision") or "?")


def sections(doc: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(title, lines) for every part of a diff payload; shared by text and markdown."""
    f, e, g = doc["flags"], doc["effects"], doc["gates"]
    out: list[tuple[str, list[str]]] = []
    flags = [f"removed  {d}" for d in f["removed"]] + [f"option removed  {o}" for o in f["options"]["removed"]]
    flags += [f"renamed  {r['from']} -> {r['to']}" for r in f["renamed"]]
    flags += [f"added    {d}" for d in f["added"]]
    flags += [f"changed  {c['dest']}.{c['field']}: {_v(c['old'])} -> {_v(c['new'])}" for c in f["changed"]]
    out.append(("Flags", flags))
    effects = [f"new rejection  {r['value'][:120]}  [{r['location']}] if {r['condition'] or 'always'}"
               for r in e["rejections_added"]]
    effects += [f"added    {x['target']} = {x['value'][:60]} if {x['condition'] or 'always'}  [{x['location']}]"
                for x in e["added"] if x["kind"] == "write"]
    effects += [f"removed  {x['target'] or 'rejection'}: {(x['value'] or '')[:60]} if {x['condition'] or 'always'}"
                f"  [{x['location']}]" for x in e["removed"]]
    for c in e["changed"]:
        o, n = c["old"], c["new"]
        label = c["target"] or "rejection"
        if c["what"] == "condition":
            detail = f"if {o['condition'] or 'always'} -> if {n['condition'] or 'always'}"
        else:
            detail = f"{o['value'][:50]} -> {n['value'][:50]} (if {n['condition'] or 'always'})"
        effects.append(f"changed  {label} {c['what']}: {detail}  [{n['location']}]")
    effects.append(f"({e['moved']} unchanged rules moved to another file, handler or line)")
    out.append(("Auto-adjustments and start-up checks", effects))
    if g.get("analysed"):
        gates = [f"{c['gpu']}: {c['dest']} {c['old']} -> {c['new']}" for c in g["changed"]]
        gates += [f"{c['gpu']}: new {c['dest']} {c['status']}" for c in g["added"]]
        out.append(("Hardware gates", gates))
    else:
        out.append(("Hardware gates", [f"gates: not analysed ({g.get('reason', '')})"]))
    for unit in doc["units"]:
        lines = [f"{d['severity']} {d['code']}: {d['message']}" + (f"  (line {d['location']['line']})"
                                                                    if d.get("location") else "")
                 for d in unit["diagnostics"]]
        out.append((f"{unit['path']}:{unit['line']} on {unit['gpu']}", lines or ["no change"]))
    for unit in doc.get("startup", []):
        out.append((f"{unit['path']}:{unit['line']} on {unit['gpu']}: startup and serving", _startup_lines(unit)))
    return out


def _startup_lines(unit: dict[str, Any]) -> list[str]:
    """What the bump adds to and removes from what this command's startup and serving code raise."""
    lines = []
    for side in ("old", "new"):
        state = unit["startup"][side]
        if state == "not reached":
            lines.append(f"startup not reached at the {side} revision (its resolution refuses the command)")
        elif state == "not followed":
            lines.append(f"startup not followed at the {side} revision (see `flagscan resolve`): changes not known")
    for verb, key in (("added", "added"), ("removed", "removed")):
        for r in unit[key]:
            how = "certain" if r["certain"] else "possible"
            lines.append(f"{verb}  {r['phase']} {how}: {(r['message'] or r['exception'])[:100]}  [{r['location']}]"
                         + (f" when {r['condition'][:100]}" if r["condition"] else ""))
    return lines or ["no change"]


def render(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    lines = [f"SGLang {_name(doc['old'])} -> {_name(doc['new'])}: {s['flags_added']} flags added, "
             f"{s['flags_removed']} removed, {s['flags_renamed']} renamed, {s['flags_changed']} changed; "
             f"{s['effects_added']} rules added, {s['effects_removed']} removed, {s['effects_changed']} changed "
             f"({s['rejections_added']} new start-up checks)"]
    for title, body in sections(doc):
        lines.append("")
        lines.append(f"{title}:")
        lines.extend(f"  {b}" for b in body) if body else lines.append("  none")
    return "\n".join(lines)


def render_markdown(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    lines = [f"### SGLang upgrade {_name(doc['old'])} → {_name(doc['new'])}", "",
             "| flags added | removed | renamed | changed | rules added | removed | changed | new start-up checks |",
             "|---|---|---|---|---|---|---|---|",
             f"| {s['flags_added']} | {s['flags_removed']} | {s['flags_renamed']} | {s['flags_changed']} | "
             f"{s['effects_added']} | {s['effects_removed']} | {s['effects_changed']} | {s['rejections_added']} |", ""]
    for title, body in sections(doc):
        unit = " on " in title and ":" in title
        lines.append(f"#### {'`' + title + '`' if unit else title}")
        lines.append("")
        if not body:
            lines.append("_none_")
        elif len(body) > 30 and not unit:
            lines.append("<details><summary>" + f"{len(body)} entries</summary>")
            lines.append("")
            lines.extend(f"- `{b}`" for b in body)
            lines.append("")
            lines.append("</details>")
        else:
            lines.extend(f"- `{b}`" for b in body)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
