"""report: findings as SARIF 2.1.0 (lint and diff), SGLang evidence as relatedLocations.

Evidence locations are relative to the SGLang source root (`sglang/srt/...`); the run
declares that root as the uriBaseId SGLANG, pointing at the pinned revision's source
(the upstream repository at the release tag, or the local tree).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from flagscan import __version__
from flagscan.diagnostics import Diagnostic

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
INFORMATION_URI = "https://pypi.org/project/flagscan/"


def source_base(sglang: dict[str, Any] | None, root: Path | None) -> dict[str, Any]:
    """The uriBaseId for SGLang source: the release tag upstream, else the local tree."""
    from flagscan.ruledata import load

    template = load("lint").get("sarif", {}).get("release_source_uri", "")
    sglang = sglang or {}
    version = sglang.get("version")
    if template and version and sglang.get("provider") in ("pypi", "git"):
        uri = template.format(version=version)
    elif root is not None:
        uri = Path(root).resolve().parent.as_uri() + "/"
    else:
        uri = "file:///"
    label = f"SGLang {version or sglang.get('revision') or ''}".strip()
    return {"uri": uri, "description": {"text": f"{label} source (parent of the sglang package)"}}


def _location(path: str, line: int, column: int = 0, base: str | None = None) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": Path(path).as_posix()}
    if base:
        artifact["uriBaseId"] = base
    region: dict[str, Any] = {"startLine": max(line, 1)}
    if column:
        region["startColumn"] = column
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _evidence_location(text: str) -> tuple[str, int]:
    path, _, line = text.rpartition(":")
    if path and line.isdigit():
        return path, int(line)
    return text, 1


def result(d: Diagnostic, rule_index: dict[str, int], fallback_path: str) -> dict[str, Any]:
    loc = d.location
    out: dict[str, Any] = {
        "ruleId": d.code,
        "level": _LEVEL[d.severity.value],
        "message": {"text": d.message},
        "locations": [_location(loc.path if loc else fallback_path, loc.line if loc else 1,
                                loc.column if loc else 0)],
    }
    if d.code in rule_index:
        out["ruleIndex"] = rule_index[d.code]
    related = []
    for i, e in enumerate(d.evidence, start=1):
        path, line = _evidence_location(e.location)
        entry = {"id": i, **_location(path, line, 0, "SGLANG")}
        if e.text:
            entry["message"] = {"text": e.text}
        related.append(entry)
    if related:
        out["relatedLocations"] = related
    if d.flag:
        out["properties"] = {"flag": d.flag}
    return out


def rule_descriptor(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc.strip()},
        "help": {"text": rule.doc.strip(), "markdown": rule.doc.strip()},
        "defaultConfiguration": {"level": _LEVEL[rule.severity.value], "enabled": rule.default},
    }


def document(findings: Iterable[tuple[Diagnostic, str]], rules: Sequence[Any], sglang: dict[str, Any] | None,
             root: Path | None, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    """`findings`: (diagnostic, path to use when it has no location)."""
    index = {r.code: i for i, r in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "flagscan", "version": __version__, "informationUri": INFORMATION_URI,
                            "rules": [rule_descriptor(r) for r in rules]}},
        "originalUriBaseIds": {"SGLANG": source_base(sglang, root)},
        "results": [result(d, index, path) for d, path in findings],
        "columnKind": "unicodeCodePoints",
    }
    if properties:
        run["properties"] = properties
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
