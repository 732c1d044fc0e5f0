"""verify: the `server_args=...` line and the resolution's warnings in an SGLang log.

SGLang's engine logs the resolved record once per start: `server_args=ServerArgs(...)`
(the dataclass repr, up to 0.5.18) or `server_args={...}` (`resolved_dict()`, 0.5.20+),
through `configure_logger`'s format `[%(asctime)s{.ms}{prefix}] %(message)s`, where the
prefix names a rank (` DP0 TP0`) in scheduler processes. Before that line, resolution's
warnings are printed before logging is configured, so they usually carry no prefix at
all (Python's last-resort handler prints the bare message); with a logging config that
prints `%(pathname)s:%(lineno)d` their locations are picked up too. journalctl (`short`,
`short-iso`, `short-precise`), docker compose (`svc-1  | `) and kubectl prefixes are
stripped before anything is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flagscan.verify.observed import LogWarning, Observed, VerifyError
from flagscan.verify.reprparse import Record, ReprError, parse_repr, to_plain

_OUTER_PREFIXES = (
    # journalctl -o short / short-precise: "Nov 29 14:25:58 host unit[123]: "
    re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ [^\s:]+(?:\[\d+\])?: "),
    # journalctl -o short-iso(-precise): "2026-11-29T14:25:58+0000 host unit[123]: "
    re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? \S+ [^\s:]+(?:\[\d+\])?: "),
    # docker compose: "sglang-1  | "
    re.compile(r"^[\w.-]+\s+\| "),
    # kubectl logs --timestamps: "2026-11-29T14:25:58.123456789Z "
    re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z "),
)
# configure_logger: "[2026-11-29 14:25:58] ", "[2026-11-29 14:25:58.123 DP0 TP0] "
_SGLANG_PREFIX = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?(?P<rank>(?: [A-Z][A-Z_]*\d+)*)\] ")
# a logging format that names the source line (%(pathname)s / %(filename)s:%(lineno)d)
_LOCATION = re.compile(r"((?:[\w./-]*/)?sglang/[\w/]+\.py|\b[\w]+\.py):(\d+)")
_MARKER = re.compile(r"(?:^|[\s\]:>])server_args=(?=ServerArgs\(|\{)")
_LEVEL = re.compile(r"^(?:WARNING|WARN|INFO|ERROR)\s*[:\]-]?\s*")


@dataclass(frozen=True, slots=True)
class LogLine:
    number: int          # 1-based
    text: str            # without journald/compose/SGLang prefixes
    rank: str | None     # "DP0 TP0" from the SGLang prefix


def strip_prefixes(line: str) -> tuple[str, str | None]:
    for pattern in _OUTER_PREFIXES:
        m = pattern.match(line)
        if m:
            line = line[m.end():]
            break
    m = _SGLANG_PREFIX.match(line)
    rank = None
    if m:
        rank = m.group("rank").strip() or None
        line = line[m.end():]
    return line, rank


def observe_log(text: str, source: str) -> Observed:
    lines = [LogLine(n, *strip_prefixes(raw.rstrip("\r"))) for n, raw in enumerate(text.splitlines(), 1)]
    starts = [(i, m) for i, line in enumerate(lines) for m in [_MARKER.search(line.text)] if m]
    if not starts:
        raise VerifyError(f"{source}: no `server_args=ServerArgs(...)` or `server_args={{...}}` line "
                          "(is this an SGLang server log, from its start?)")
    index, match = starts[-1]
    line = lines[index]
    try:
        value, _end = parse_repr(line.text, match.end())
    except ReprError as exc:
        hint = (" — the line is cut short (journald splits lines longer than its LineMax, 48K by default)"
                if "end of text" in str(exc) else "")
        raise VerifyError(f"{source}:{line.number}: cannot read the server_args value ({exc}){hint}") from None
    if isinstance(value, Record):
        values = to_plain(value)
    elif isinstance(value, dict):
        values = to_plain(value)
    else:
        raise VerifyError(f"{source}:{line.number}: server_args is neither ServerArgs(...) nor a dict")
    begin = starts[-2][0] + 1 if len(starts) > 1 else 0
    notes = []
    if len(starts) > 1:
        notes.append(f"{len(starts)} server starts in the log; using the last (line {line.number})")
    if line.rank:
        notes.append(f"server_args line logged by rank {line.rank}")
    return Observed(source=f"{source}:{line.number}", values=values,
                    warnings=tuple(_warnings(lines[begin:index])), notes=tuple(notes))


def _warnings(lines: list[LogLine]) -> list[LogWarning]:
    out: list[LogWarning] = []
    for line in lines:
        text = line.text.strip()
        if not text:
            continue
        location = None
        m = _LOCATION.search(text)
        if m:
            path = m.group(1)
            path = path[path.rindex("sglang/"):] if "sglang/" in path else path
            location = f"{path}:{m.group(2)}"
        out.append(LogWarning(_LEVEL.sub("", text), location, line.number))
    return out[-2000:]
