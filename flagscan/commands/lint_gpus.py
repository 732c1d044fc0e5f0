"""cli: `flagscan lint --gpu a,b`: one lint per GPU, merged into one result per file.

A finding that is the same on every GPU is given once; each finding knows the GPUs it
holds on (the JSON's `gpus` field; in text, the names when not all of them). --fix
removes a no-op flag only when it is a no-op on every GPU asked: removing it elsewhere
would change what the server does there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from flagscan.diagnostics import Diagnostic

Labels = dict[Diagnostic, tuple[str, ...]]


def _order(d: Diagnostic) -> tuple[Any, ...]:
    loc = d.location
    return (loc is None, loc.path if loc else "", loc.line if loc else 0, loc.column if loc else 0, d.code,
            d.flag or "", d.message)


def merge_gpus(per_gpu: Sequence[tuple[str, Sequence[Any]]]) -> tuple[list[Any], list[Labels]]:
    """(merged file results, for each file the GPUs of each of its diagnostics, in order)."""
    first = per_gpu[0][1]
    merged: list[Any] = []
    labels: list[Labels] = []
    for index, result in enumerate(first):
        seen: dict[Diagnostic, list[str]] = {}
        for label, results in per_gpu:
            for d in results[index].diagnostics:
                names = seen.setdefault(d, [])
                if label not in names:
                    names.append(label)
        ordered = sorted(seen, key=_order)
        labels.append({d: tuple(seen[d]) for d in ordered})
        commands = []
        for k, command in enumerate(result.commands):
            notes = [n for _label, results in per_gpu for n in results[index].commands[k].notes]
            commands.append(replace(command, notes=tuple(dict.fromkeys(notes))))
        suppressed = max(results[index].suppressed for _label, results in per_gpu)
        merged.append(replace(result, commands=tuple(commands), diagnostics=tuple(ordered), suppressed=suppressed,
                              fixed_text=None, fix_notes=()))
    return merged, labels


def with_gpu_names(results: Sequence[Any], labels: Sequence[Labels], every: Sequence[str]) -> list[Any]:
    """The results with each message saying its GPUs when it does not hold on all of them."""
    out = []
    for result, names in zip(results, labels):
        shown = tuple(d if len(names[d]) == len(every) else replace(d, message=f"{d.message} [on {', '.join(names[d])}]")
                      for d in result.diagnostics)
        out.append(replace(result, diagnostics=shown))
    return out


def fix_merged(results: Sequence[Any], labels: Sequence[Labels], every: Sequence[str], inventory: Any,
               kind: str | None) -> list[Any]:
    from flagscan.inputs.model import Source
    from flagscan.inputs.read import read_launch_source
    from flagscan.lint.fix import fix_text

    out = []
    for result, names in zip(results, labels):
        if not result.commands:
            out.append(result)
            continue
        # A no-op finding names its GPU, so each GPU has its own: gather them per flag.
        no_op: dict[tuple[Any, str | None], list[str]] = {}
        for d in result.diagnostics:
            if d.code == "FS201":
                no_op.setdefault((d.location, d.flag), []).extend(names[d])
        fixable, notes, done = [], [], set()
        for d in result.diagnostics:
            if d.code == "FS201":
                key = (d.location, d.flag)
                if key in done:
                    continue
                done.add(key)
                on = [g for g in every if g in no_op[key]]
                if len(on) != len(every):
                    others = [g for g in every if g not in on]
                    where = f"{d.location.path}:{d.location.line}: " if d.location else ""
                    notes.append(f"{where}{d.flag} not removed: a no-op on {', '.join(on)} but not on "
                                 f"{', '.join(others)}")
                    continue
            fixable.append(d)
        commands = read_launch_source(Source.of(result.path, result.text), kind)
        contexts = [SimpleNamespace(command=c, inventory=inventory) for c in commands]
        fixed, fix_notes = fix_text(result.text, fixable, contexts)
        out.append(replace(result, fixed_text=fixed, fix_notes=tuple(notes + fix_notes)))
    return out
