"""cli: `flagscan lint FILE...`: findings on launch files for a GPU and an SGLang revision."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from flagscan.cli import Exit, Options, UserError, merge_options, progress, run_guarded
from flagscan.commands.scenario import scenario_options

if TYPE_CHECKING:
    from flagscan.commands.lint_gpus import Labels
    from flagscan.evaluate import ModelFacts
    from flagscan.hardware import GpuProfile
    from flagscan.lint import FileResult

FORMATS = ("text", "concise", "json", "sarif", "github")
THRESHOLD = {"error": 3, "warning": 2, "info": 1}
DEFAULT_FAIL_ON = "warning"


def _codes(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(c for v in values for c in v.split(",") if c.strip())


@click.command("lint")
@click.option("--sglang", "sglang", metavar="REV", default=None, help="SGLang revision (default: the project pin).")
@click.option("--cache-dir", type=click.Path(), default=None, help="Cache directory.")
@click.option("--offline", is_flag=True, default=False, help="Use the cache only.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format.")
@scenario_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None,
              help="Kind of launch file (detected when omitted).")
@click.option("--fail-on", type=click.Choice(list(THRESHOLD)), default=None,
              help=f"Lowest severity that makes the exit code 1 (default: {DEFAULT_FAIL_ON}).")
@click.option("--select", multiple=True, metavar="CODES", help="Only these codes or prefixes (FS1, FS201, ALL).")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Also these codes (e.g. opt-in FS103).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Not these codes or prefixes.")
@click.option("--upgrade-to", metavar="REV", default=None, help="Also check the command against a later revision.")
@click.option("--fix", is_flag=True, help="Rewrite the files: exact replacements for deprecated flags, drop no-ops.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the --fix edits as a unified diff; change nothing.")
@click.option("--config", "config_path", metavar="FILE", default=None,
              help="Configuration file (default: nearest flagscan.toml or pyproject.toml with [tool.flagscan]).")
@click.argument("files", nargs=-1, required=True)
@click.pass_context
def lint(ctx: click.Context, sglang: str | None, cache_dir: str | None, offline: bool, fmt: str | None,
         gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
         model_config: str | None, model_arch: str | None, env: tuple[str, ...], kind: str | None,
         fail_on: str | None, select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
         upgrade_to: str | None, fix: bool, show_diff: bool, config_path: str | None, files: tuple[str, ...]) -> None:
    """Lint SGLang launch files (systemd units, scripts, compose, Kubernetes) for one GPU or several
    (--gpu a,b). FILE `-` reads the launch file from stdin (with --fix, the fixed text goes to stdout)."""
    from pathlib import Path

    base = ctx.obj
    fmt = fmt or (base.format if base else "text")
    opts = merge_options(ctx, sglang=sglang, cache_dir=Path(cache_dir) if cache_dir else None, offline=offline)

    request = Request(tuple(files), fmt, gpu, gpu_count, gpu_memory, gpu_name, cuda, model_config, model_arch,
                      tuple(env), kind, fail_on, _codes(select), _codes(extend_select), _codes(ignore), upgrade_to,
                      fix, show_diff, config_path)
    run_guarded(lambda: run(request, opts))


@dataclass(frozen=True, slots=True)
class Request:
    """What `flagscan lint` was asked, as click parsed it."""

    files: tuple[str, ...]
    fmt: str
    gpu: str | None
    gpu_count: int | None
    gpu_memory: str | None
    gpu_name: str | None
    cuda: str | None
    model_config: str | None
    model_arch: str | None
    env: tuple[str, ...]
    kind: str | None
    fail_on: str | None
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    upgrade_to: str | None
    fix: bool
    show_diff: bool
    config_path: str | None


def run(req: Request, opts: Options) -> int:
    from flagscan.commands.args_cmd import STDIN, stdin_source
    from flagscan.commands.common import emit_json, open_revision
    from flagscan.commands.scenario import gpu_list, model_facts, parse_env
    from flagscan.config import ConfigError, load_config
    from flagscan.lint import LintOptions, Selection, SelectionError, Target, Upgrade, all_rules, lint_files, summary
    from flagscan.lint.fix import unified
    from flagscan.lint.select import check_prefixes
    from flagscan.report import github, lint_json, lint_text, sarif

    say = progress(opts)
    try:
        config = load_config(req.config_path)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    codes = [r.code for r in all_rules()]
    try:
        selection = Selection(tuple(check_prefixes(req.select or config.select, codes)),
                              tuple(check_prefixes(req.extend_select + config.extend_select, codes)),
                              tuple(check_prefixes(req.ignore + config.ignore, codes)),
                              tuple((g, tuple(check_prefixes(c, codes))) for g, c in config.per_file_ignores))
    except SelectionError as exc:
        raise UserError(str(exc)) from None
    gpu_spec = req.gpu if req.gpu is not None else config.gpu
    gpu_count = req.gpu_count if req.gpu_count is not None else config.gpu_count
    gpus = gpu_list(gpu_spec, gpu_count, req.gpu_memory, req.gpu_name, req.cuda, required=False)
    if req.files.count("-") > 1:
        raise UserError("stdin (-) can be given once")
    stdin_text = stdin_source().text if "-" in req.files else None
    rev = open_revision(opts, reads=bool(gpus))  # with a GPU, the runtime gates read the whole tree
    model_config = req.model_config or config.model_config
    fixed_model = model_facts(model_config, req.model_arch, None) if (model_config or req.model_arch) else None

    def model_for(model_path: str | None) -> ModelFacts | None:
        if fixed_model is not None:
            return fixed_model
        return model_facts(None, None, model_path) if model_path else None

    upgrade = None
    upgrade_spec = req.upgrade_to or config.upgrade_to
    if upgrade_spec:
        later = open_revision(opts, upgrade_spec)
        upgrade = Upgrade(later.inventory, later.tree.version or upgrade_spec)
    target = Target(rev.tree.root, rev.cache_dir, rev.inventory, rev.tree.version or str(rev.tree.revision))
    fixing = req.fix or req.show_diff

    def lint_all(profile: GpuProfile | None, fix: bool) -> list[FileResult]:
        options = LintOptions(target, profile, gpu_count is not None, parse_env(req.env), model_for, selection,
                              req.kind, upgrade, fix)
        paths = [STDIN if f == "-" else f for f in req.files]
        return lint_files(paths, options, {STDIN: stdin_text} if stdin_text is not None else None,
                          progress=not opts.quiet)

    labels: list[Labels] | None = None
    if len(gpus) <= 1:
        profile = gpus[0][1] if gpus else None
        results = lint_all(profile, fixing)
        hardware = profile.to_json() if profile else None
    else:
        from flagscan.commands.lint_gpus import fix_merged, merge_gpus

        profile = gpus[0][1]
        results, labels = merge_gpus([(label, lint_all(p, False)) for label, p in gpus])
        hardware = None
        if fixing:
            results = fix_merged(results, labels, [label for label, _p in gpus], rev.inventory, req.kind)
    notes = list(dict.fromkeys(n for r in results for c in r.commands for n in c.notes))
    gates = "analysed" if profile is not None else "not analysed"
    if fixing:
        return _fix(results, req, say, unified)
    shown = results
    if labels is not None:
        from flagscan.commands.lint_gpus import with_gpu_names

        shown = with_gpu_names(results, labels, [label for label, _p in gpus])
    counts = summary(results)
    diagnostics = [d for r in results for d in r.diagnostics]
    if req.fmt == "json":
        doc = lint_json.payload(results, counts, hardware, notes, gates)
        if labels is not None:
            # Several GPUs: which of them each finding holds on, and each GPU's profile.
            found = [g for per_file in labels for g in per_file.values()]
            for item, names in zip(doc["diagnostics"], found):
                item["gpus"] = list(names)
            doc["gpus"] = {label: p.to_json() for label, p in gpus}
        emit_json("lint", doc, rev)
    elif req.fmt == "sarif":
        import json

        findings = [(d, r.path) for r in shown for d in r.diagnostics]
        doc = sarif.document(findings, all_rules(), rev.sglang_json(), rev.tree.root,
                             {"gates": gates, "notes": notes, "hardware": hardware})
        click.echo(json.dumps(doc, indent=2))
    elif req.fmt == "github":
        rule_names = {r.code: r.name for r in all_rules()}
        if diagnostics:
            click.echo(github.render([d for r in shown for d in r.diagnostics], rule_names))
    else:
        text = lint_text.render(shown, notes, concise=req.fmt == "concise")
        if text:
            click.echo(text)
    say(lint_text.summary_line(counts))
    threshold = THRESHOLD[req.fail_on or config.fail_on or DEFAULT_FAIL_ON]
    return Exit.FINDINGS if any(d.severity.rank >= threshold for d in diagnostics) else Exit.OK


def _fix(results: list[FileResult], req: Request, say: Callable[[str], None],
         unified: Callable[[str, str, str], str]) -> int:
    from pathlib import Path

    from flagscan.commands.args_cmd import STDIN

    changed = 0
    for r in results:
        for note in r.fix_notes:
            click.echo(f"flagscan: {note}", err=True)  # never silenced: it says what was left alone
        after = r.fixed_text if r.fixed_text is not None else r.text
        if r.path == STDIN and not req.show_diff:
            click.echo(after, nl=False)  # a filter: the text, fixed or not, on stdout
        if after == r.text:
            continue
        changed += 1
        if req.show_diff:
            click.echo(unified(r.path, r.text, after), nl=False)
        elif r.path != STDIN:
            Path(r.path).write_text(after, encoding="utf-8")
            say(f"fixed {r.path}")
    if not changed:
        say("nothing to fix")
    return Exit.FINDINGS if (req.show_diff and changed) else Exit.OK


COMMANDS = [lint]
