"""report: lint results as text, ruff/shellcheck style: location, code, message, the offending line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from flagscan.diagnostics import Diagnostic

if TYPE_CHECKING:
    from flagscan.report.shapes import FileFindings


def _word_length(line: str, column: int) -> int:
    start = max(column - 1, 0)
    end = start
    while end < len(line) and not line[end].isspace():
        end += 1
    return max(end - start, 1)


def _snippet(text_lines: list[str], d: Diagnostic) -> list[str]:
    loc = d.location
    if loc is None or not 1 <= loc.line <= len(text_lines):
        return []
    line = text_lines[loc.line - 1].rstrip("\r\n")
    gutter = " " * len(str(loc.line))
    col = max(loc.column, 1)
    return [f"{gutter} |",
            f"{loc.line} | {line}",
            f"{gutter} | {' ' * (col - 1)}{'^' * _word_length(line, col)}"]


def render_diagnostic(d: Diagnostic, text_lines: list[str]) -> list[str]:
    loc = d.location
    where = f"{loc.path}:{loc.line}:{loc.column}: " if loc else ""
    out = [f"{where}{d.code} [{d.severity.value}] {d.message}"]
    out.extend(_snippet(text_lines, d))
    gutter = " " * (len(str(loc.line)) if loc else 1)
    for e in d.evidence:
        out.append(f"{gutter} = sglang: {e.location}" + (f"  {e.text}" if e.text else ""))
    return out


def render(results: Sequence[FileFindings], notes: Sequence[str] = (), fixes: Sequence[str] = (), concise: bool = False) -> str:
    """Each finding with the line of the file it points at and SGLang's evidence; `concise`:
    one line per finding (path:line:column: code [severity] message), as grep and editors read it."""
    lines: list[str] = []
    for r in results:
        text_lines = r.text.splitlines()
        for d in r.diagnostics:
            if concise:
                lines.append(render_diagnostic(d, text_lines)[0])
                continue
            lines.extend(render_diagnostic(d, text_lines))
            lines.append("")
    for note in notes:
        lines.append(f"note: {note}")
    lines.extend(fixes)
    return "\n".join(lines).rstrip("\n")


def summary_line(counts: dict[str, int]) -> str:
    total = counts["error"] + counts["warning"] + counts["info"]
    parts = f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    extra = f"; {counts['suppressed']} suppressed" if counts.get("suppressed") else ""
    if not total:
        return f"no findings in {counts['commands']} command(s) of {counts['files']} file(s){extra}"
    return f"{total} finding(s) ({parts}) in {counts['commands']} command(s) of {counts['files']} file(s){extra}"
