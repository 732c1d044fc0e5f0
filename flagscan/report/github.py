"""report: GitHub Actions workflow commands (`::error file=...,line=...::message`) for findings."""

from __future__ import annotations

from collections.abc import Iterable

from flagscan.diagnostics import Diagnostic

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, rule_name: str = "") -> str:
    props = []
    if d.location is not None:
        props += [f"file={_prop(d.location.path)}", f"line={d.location.line}"]
        if d.location.column:
            props.append(f"col={d.location.column}")
    props.append(f"title={_prop(f'{d.code} {rule_name}'.strip())}")
    message = d.message + "".join(f"\n  sglang: {e.location} {e.text}".rstrip() for e in d.evidence[:3])
    return f"::{_LEVEL[d.severity.value]} {','.join(props)}::{_data(message)}"


def render(diagnostics: Iterable[Diagnostic], names: dict[str, str]) -> str:
    return "\n".join(annotation(d, names.get(d.code, "")) for d in diagnostics)
