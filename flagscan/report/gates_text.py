"""report: gate verdicts as text or markdown: grouped per GPU, a matrix for several GPUs."""

from __future__ import annotations

from typing import Any

ORDER = ("NO_OP", "REJECTED", "CONDITIONAL", "EFFECTIVE", "UNREAD")
TITLES = {"NO_OP": "No-ops (every read is dead)", "REJECTED": "Rejected at startup",
          "CONDITIONAL": "Conditional (depends on facts not given)", "EFFECTIVE": "Effective",
          "UNREAD": "Unread at run time (only steers other settings)"}
SHORT = {"NO_OP": "no-op", "REJECTED": "REJECT", "CONDITIONAL": "cond", "EFFECTIVE": "eff", "UNREAD": "unread"}


def _why(entry: dict[str, Any], where: str = "this GPU") -> str:
    status = entry["status"]
    if status == "NO_OP":
        # say which condition is false where: "never read here: `A or B` is false on sm120"
        ev = entry.get("evidence") or []
        if ev:
            first = ev[0]
            names = ", ".join(f"{n['name']}={n['value']}" for n in first.get("names", [])[:3])
            return (f"never read here: `{first['guard']}` is false on {where} (at {first['read']})"
                    + (f"; {names}" if names else ""))
        dead = next((r for r in entry["reads"] if r.get("dead_because")), None)
        if dead is None:
            return ""
        reason = dead["dead_because"][0]
        if reason.startswith("every call site"):
            return f"never read here: {reason} on {where} (at {dead['location']})"
        return f"never read here: `{reason}` is false on {where} (at {dead['location']})"
    if status == "CONDITIONAL":
        needs = entry.get("needs", [])
        return "needs " + ", ".join(needs[:4]) + (f" (+{len(needs) - 4})" if len(needs) > 4 else "")
    if status == "UNREAD":
        steers = entry.get("steers", [])
        return ("steers " + ", ".join(steers[:5])) if steers else "no runtime read found"
    if status == "REJECTED":
        rej = (entry.get("rejections") or [{}])[0]
        return f"{rej.get('location', '')}: {rej.get('message') or rej.get('condition', '')}"
    live = next((r for r in entry["reads"] if r["live"] == "live"), None)
    return f"read at {live['location']}" if live else ""


def render(reports: dict[str, dict[str, Any]], version: str, *, markdown: bool = False, command: bool = False,
           show_effective: bool = False) -> str:
    if len(reports) == 1:
        label, rep = next(iter(reports.items()))
        return _single(label, rep, version, markdown)
    return _matrix(reports, version, markdown)


def _single(label: str, rep: dict[str, Any], version: str, markdown: bool) -> str:
    flags = rep["flags"]
    hw = rep.get("hardware", {})
    sm = hw.get("capability")
    head = f"sglang {version} on {label}" + (f" (compute capability {sm})" if sm else "")
    lines = [f"# {head}" if markdown else head, ""]
    counts = {s: sum(1 for e in flags.values() if e["status"] == s) for s in ORDER}
    lines.append(", ".join(f"{counts[s]} {s}" for s in ORDER))
    lines.extend(_stopped(rep))
    for status in ORDER:
        group = sorted(d for d, e in flags.items() if e["status"] == status)
        if not group:
            continue
        lines.append("")
        lines.append(f"## {TITLES[status]} ({len(group)})" if markdown else f"{TITLES[status]} ({len(group)}):")
        for dest in group:
            why = _why(flags[dest], label)
            lines.append(f"- `{dest}`: {why}" if markdown else f"  {dest:<48} {why}")
    return "\n".join(lines).rstrip() + "\n"


def _stopped(rep: dict[str, Any]) -> list[str]:
    """Where analysis stopped: verdicts that rest on code past these points may be incomplete."""
    stops = rep.get("stopped") or []
    if not stops:
        return []
    lines = [f"analysis stopped at {len(stops)} place{'' if len(stops) == 1 else 's'} "
             "(what they compute is unknown; see --format json \"stopped\"):"]
    for s in stops[:5]:
        needs = f" (those values need: {', '.join(s['needs'])})" if s.get("needs") else ""
        lines.append(f"  {s['location']}: {s['construct']}; {s['unknown']} is unknown{needs}")
    if len(stops) > 5:
        lines.append(f"  ... and {len(stops) - 5} more")
    return lines


def _matrix(reports: dict[str, dict[str, Any]], version: str, markdown: bool) -> str:
    labels = list(reports)
    dests = sorted({d for r in reports.values() for d in r["flags"]})
    gated = [d for d in dests if len({reports[g]["flags"].get(d, {}).get("status") for g in labels}) > 1]
    lines = [f"# sglang {version}: verdicts on {', '.join(labels)}" if markdown
             else f"sglang {version}: verdicts on {', '.join(labels)}", ""]
    for label in labels:
        stopped = _stopped(reports[label])
        if stopped:
            lines.extend([f"{label}: {stopped[0]}", *stopped[1:], ""])
    lines.append(("## " if markdown else "") + f"Hardware-gated ({len(gated)} flag{'' if len(gated) == 1 else 's'} whose verdict differs by GPU)")
    lines.extend(_table(gated, labels, reports, markdown))
    for status in ("NO_OP", "REJECTED", "CONDITIONAL", "UNREAD", "EFFECTIVE"):
        same = [d for d in dests if d not in gated and reports[labels[0]]["flags"].get(d, {}).get("status") == status]
        if not same:
            continue
        lines.append("")
        lines.append(("## " if markdown else "") + f"{TITLES[status]} on every GPU ({len(same)})")
        if status in ("NO_OP", "REJECTED", "UNREAD"):
            for d in same:
                why = _why(reports[labels[0]]["flags"][d], "every GPU given")
                lines.append(f"- `{d}`: {why}" if markdown else f"  {d:<48} {why}")
        else:
            lines.extend(_wrapped(same) if not markdown else [", ".join(f"`{d}`" for d in same)])
    return "\n".join(lines).rstrip() + "\n"


def text_width() -> int:
    """The terminal's width when stdout is one, else a fixed 100 (files and pipes)."""
    import shutil
    import sys

    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((100, 24)).columns)
    return 100


def _wrapped(names: list[str]) -> list[str]:
    """A long list of flag names as indented lines that fit the width (never splitting a name)."""
    import textwrap

    return textwrap.wrap(", ".join(names), width=text_width(), initial_indent="  ", subsequent_indent="  ",
                         break_long_words=False, break_on_hyphens=False)


def _table(dests: list[str], labels: list[str], reports: dict[str, dict[str, Any]], markdown: bool) -> list[str]:
    if not dests:
        return ["  (none)"]
    if markdown:
        out = ["| flag | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for d in dests:
            cells = [reports[g]["flags"].get(d, {}).get("status", "-") for g in labels]
            out.append(f"| `{d}` | " + " | ".join(cells) + " |")
        return out
    width = max(len(d) for d in dests)
    cols = [max(len(g), 6) for g in labels]
    out = ["  " + " " * width + "  " + "  ".join(g.ljust(c) for g, c in zip(labels, cols))]
    for d in dests:
        cells = [SHORT.get(reports[g]["flags"].get(d, {}).get("status", "-"), "-") for g in labels]
        out.append("  " + d.ljust(width) + "  " + "  ".join(c.ljust(w) for c, w in zip(cells, cols)))
    return out
