"""lint: one pass over each launch command of each file, many rules; suppressions; fixes.

The engine owns the traversal (files -> commands -> rules); rules only look at a
Context. A failure inside one rule becomes a note on the result, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.diagnostics import Diagnostic, FileLocation
from flagscan.extract.errors import ExtractionError
from flagscan.lint import suppress
from flagscan.lint.context import Context, Target, Upgrade
from flagscan.lint.model import CommandResult, FileResult, Rule
from flagscan.lint.registry import all_rules
from flagscan.lint.select import Selection
from flagscan.ruledata import command_width, model_path_of
from flagscan.strict import give_up

if TYPE_CHECKING:
    from flagscan.hardware import GpuProfile
    from flagscan.inputs.model import LaunchCommand, Source

NO_LAUNCH_CODE = "FS010"
UNUSED_CODE = "FS902"
_ENGINE_CODES = {NO_LAUNCH_CODE, UNUSED_CODE}


@dataclass(frozen=True, slots=True)
class LintOptions:
    target: Target
    gpu: Any | None = None               # flagscan.hardware.GpuProfile
    gpu_count_given: bool = False
    env: dict[str, str] = field(default_factory=dict)
    model: Callable[[str | None], Any] | None = None  # model_path -> ModelFacts | None
    selection: Selection = field(default_factory=Selection)
    kind: str | None = None
    upgrade: Upgrade | None = None
    fix: bool = False


def lint_files(paths: Sequence[str], options: LintOptions, texts: dict[str, str] | None = None,
               progress: bool = False) -> list[FileResult]:
    """Each file linted as if alone, in the order given (`texts`: content of paths not read from disk,
    such as stdin). Commands that are the same for the evaluator (same values, environment, GPU and
    model) are resolved, started and gated once (flagscan.evaluate.cachekey.sharing); `progress`: a bar
    on stderr while many files take long (flagscan.progress)."""
    from flagscan.evaluate.cachekey import sharing

    texts = texts or {}
    bar = None
    if progress and len(paths) > 1:
        from flagscan.progress import Progress

        bar = Progress("flagscan: linting", len(paths))
    try:
        with sharing():
            chunks = _chunks(list(paths))
            if len(chunks) > 1:
                return _in_workers(chunks, options, texts, bar)
            out = []
            for p in paths:
                out.append(lint_file(p, options, texts.get(p)))
                if bar is not None:
                    bar.advance()
            return out
    finally:
        if bar is not None:
            bar.close()


POOL_MIN_FILES = 48    # below this, forking costs more than it saves
_CHUNK = 16
_FORKED: tuple[Any, ...] = ()


def _chunks(paths: list[str]) -> list[list[str]]:
    import multiprocessing
    import os

    if len(paths) < POOL_MIN_FILES or (os.cpu_count() or 1) < 2 \
            or "fork" not in multiprocessing.get_all_start_methods():
        return [paths]
    return [paths[i:i + _CHUNK] for i in range(0, len(paths), _CHUNK)]


def _lint_chunk(paths: list[str]) -> list[FileResult]:
    options, texts = _FORKED
    return [lint_file(p, options, texts.get(p)) for p in paths]


def _in_workers(chunks: list[list[str]], options: LintOptions, texts: dict[str, str], bar: Any) -> list[FileResult]:
    """Files are independent: chunks of them go to forked workers (one per core), in order.
    The options hold closures (the model lookup), which only a forked child inherits."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from flagscan.extract.reads import settle_reads

    global _FORKED
    settle_reads()  # a tree parse begun in the background: finished here, once, for every worker
    _FORKED = (options, texts)
    out: list[FileResult] = []
    try:
        with ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1, len(chunks)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            for results in pool.map(_lint_chunk, chunks):
                out.extend(results)
                if bar is not None:
                    bar.advance(len(results))
    finally:
        _FORKED = ()
    return out


def lint_file(path: str, options: LintOptions, text: str | None = None) -> FileResult:
    """`text`: the file's content when it is not read from `path` (stdin)."""
    from flagscan.inputs import InputError
    from flagscan.inputs.model import NO_LAUNCH, Source
    from flagscan.inputs.read import read_launch_source
    from flagscan.inputs.text import read_source

    source = read_source(path) if text is None else Source.of(path, text)
    text = source.text
    rules = [r for r in all_rules() if options.selection.enabled(r, path)]
    enabled = {r.code for r in rules}
    try:
        commands = _read_shared(source, options.kind, read_launch_source)
    except InputError as exc:
        if not str(exc).endswith(NO_LAUNCH):
            raise
        from flagscan.lint.rules.fs010_no_launch_command import file_finding

        found = [file_finding(str(path))] if NO_LAUNCH_CODE in enabled else []
        return FileResult(str(path), (), tuple(found), 0, None, (), text)
    results: list[CommandResult] = []
    contexts: list[Context] = []
    judged = {r.code for r in rules if not r.needs}
    for command in commands:
        ctx = _context(command, options)
        contexts.append(ctx)
        if ctx.scenario is not None and any("startup" in r.needs for r in rules):
            # cold: one run of SGLang's resolution for both phases, the startup entries in a
            # child beside the gates, the tree's parse (if in flight) beside both
            ctx.start_early()
        runnable = [r for r in rules if r.code not in _ENGINE_CODES and ctx.available(r.needs)]
        judged.update(r.code for r in runnable)
        found = _run(ctx, runnable)
        results.append(CommandResult(command.path, command.line, command.launcher, tuple(found),
                                     tuple(dict.fromkeys(ctx.notes + list(command.notes)))))
    everything = [d for r in results for d in r.diagnostics]
    known = {r.code for r in all_rules()}
    # A suppression for a rule that could not run here (no GPU, gates not analysed) is not "unused".
    from flagscan.lint.rules.fs902_unused_suppression import finding as unused

    kept, dropped = suppress.apply(str(path), text, everything, known, enabled & judged,
                                   unused if UNUSED_CODE in enabled else None)
    kept = sorted(_dedupe(kept), key=_order)
    fixed: str | None = None
    fix_notes: list[str] = []
    if options.fix:
        from flagscan.lint.fix import fix_text

        fixed, fix_notes = fix_text(text, kept, contexts)
    return FileResult(str(path), tuple(results), tuple(kept), dropped, fixed, tuple(fix_notes), text)


def _read_shared(source: Source, kind: str | None, read: Callable[..., Any]) -> Any:
    """The file's launch commands, read once per lint of many files (each GPU of a list lints it again)."""
    import hashlib

    from flagscan.evaluate.cachekey import shared

    key = hashlib.sha256(f"{source.path}\0{kind}\0{source.text}".encode()).hexdigest()
    return shared("launch", key, lambda: read(source, kind=kind))


def _context(command: LaunchCommand, options: LintOptions) -> Context:
    from flagscan.inputs import parse_command
    from flagscan.inputs.argv import ParsedCommand
    from flagscan.lint.programs import for_command

    inventory, note = for_command(options.target, command, getattr(options, "model_config", None))
    if inventory is None:
        # a program flagscan has no parser for: said, and its flags are not judged by another's
        ctx = Context(ParsedCommand(command, {}, ()), options.target, None, options.upgrade)
        ctx.notes.append(note or "")
        return ctx
    parsed = parse_command(command, inventory)
    scenario = None
    if options.gpu is not None:
        from flagscan.evaluate import Scenario

        values = {dest: v.value for dest, v in parsed.values.items()}
        model = options.model(model_path_of(values)) if options.model is not None else None
        gpu = options.gpu if options.gpu_count_given else _count_from_command(options.gpu, values)
        scenario = Scenario(gpu, {**command.env, **options.env}, model)
    ctx = Context(parsed, options.target, scenario, options.upgrade)
    if note:
        ctx.notes.append(note)
    if scenario is None:
        ctx.notes.append("no GPU given: knock-on, no-op and rejection rules were not run (give --gpu)")
    return ctx


def _count_from_command(profile: GpuProfile, values: dict[str, Any]) -> GpuProfile:
    """Without --gpu-count, the node has as many GPUs as the command's TP x PP width."""
    return replace(profile, count=max(profile.count, command_width(values)))


def _run(ctx: Context, rules: list[Rule]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for rule in rules:
        try:
            out.extend(rule.check(ctx))
        except ExtractionError:
            raise  # the revision (or its resolution) cannot be read at all: one line, exit 2
        except Exception as exc:  # a defect in one rule must not hide the others' findings
            ctx.notes.append(give_up(f"{type(exc).__name__}: {exc}; its findings are missing", f"{rule.code} could not run"))
    return out


def _dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diagnostics:
        key = (d.code, d.location, d.flag, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _order(d: Diagnostic) -> tuple[Any, ...]:
    loc = d.location
    return (loc is None, loc.path if loc else "", loc.line if loc else 0, loc.column if loc else 0, d.code)


def relocate(d: Diagnostic, path: str) -> Diagnostic:
    """A diagnostic without a place in the file gets the file itself (SARIF needs one)."""
    return d if d.location is not None else replace(d, location=FileLocation(path, 1, 1))


def summary(results: Sequence[FileResult]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for r in results:
        for d in r.diagnostics:
            counts[d.severity.value] += 1
    return {**counts, "files": len(results), "commands": sum(len(r.commands) for r in results),
            "suppressed": sum(r.suppressed for r in results)}


def exists(path: str) -> bool:
    return Path(path).is_file()
