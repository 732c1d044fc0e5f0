"""cli: `flagscan report`: every flag's runtime verdict on one or more GPUs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flagscan.cli import Exit, F, LaunchArgs, UserError, merge_options, run_guarded
from flagscan.commands.scenario import gpu_list, scenario_options
from flagscan.ruledata import model_path_of

if TYPE_CHECKING:
    from flagscan.commands.common import Revision
    from flagscan.evaluate import Scenario
    from flagscan.evaluate.packages import Packages
    from flagscan.evaluate.resolution.results import Resolution
    from flagscan.evaluate.startup.results import StartupRaise, StartupResult
    from flagscan.extract.reads import TreeReads
    from flagscan.hardware import GpuProfile

GATE_FORMATS = ("text", "json", "markdown")


def gate_source_options(formats: tuple[str, ...]) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        fn = click.option("--sglang", "sglang", metavar="REV", default=None,
                          help="SGLang revision: 0.5.10, v0.5.10, a commit, a path, a wheel, or 'installed'.")(fn)
        fn = click.option("--cache-dir", type=click.Path(), default=None, help="Cache directory.")(fn)
        fn = click.option("--offline", is_flag=True, default=False, help="Use the cache only.")(fn)
        fn = click.option("--format", "fmt", type=click.Choice(formats), default=None, help="Output format.")(fn)
        return fn
    return wrap


def load_tree_reads(rev: Revision, quiet: bool = False) -> TreeReads:
    """The revision's read facts; a progress bar on stderr while files are parsed."""
    from flagscan.extract.reads import load_reads
    from flagscan.progress import tracker

    reads = load_reads(rev.tree.root, rev.cache_dir,
                       progress=None if quiet else tracker(f"flagscan: reading sglang {rev.tree.version or ''}".strip()))
    for rel, why in sorted(reads.skipped.items()):
        if not quiet:
            click.echo(f"flagscan: skipped {rel}: {why}", err=True)
    return reads


@dataclass(slots=True)
class Launch:
    """What a launch command contributes: effective settings, rejections, the flags it gives."""

    settings: dict[str, Any] | None
    rejections: list[Any]
    user_dests: set[str]
    env: dict[str, str | None]   # None: a variable the resolution removes
    model: Any
    parse_errors: list[str] = field(default_factory=list)   # what SGLang's parser would refuse
    startup: list[tuple[str, Any]] = field(default_factory=list)  # (dest, certain startup raise it is due to)
    startup_result: Any = None  # flagscan.evaluate.startup.StartupResult (None: not reached)
    packages: Any = None   # flagscan.evaluate.packages.Packages: the release's pins and --package


def launch_for(rev: Revision, gpu: GpuProfile, file: str | None, argv: tuple[str, ...], kind: str | None,
               env_pairs: tuple[str, ...], model_config: str | None, model_arch: str | None) -> Launch:
    from flagscan.commands.args_cmd import read_commands
    from flagscan.commands.scenario import model_facts, parse_env

    extra_env = parse_env(env_pairs)
    packages = run_packages(rev, gpu)
    if not file and not argv:
        return Launch(None, [], set(), dict(extra_env), model_facts(model_config, model_arch, None), packages=packages)
    from flagscan.commands.common import begin_startup_cold
    from flagscan.evaluate import Scenario, predict
    from flagscan.evaluate.gates.run import runtime_env, runtime_settings
    from flagscan.inputs import parse_command

    command = read_commands(file, argv, kind)[0]
    parsed = parse_command(command, rev.inventory)
    values = {dest: v.value for dest, v in parsed.values.items()}
    model_path = model_path_of(values)
    facts = model_facts(model_config, model_arch, model_path)
    env = {**command.env, **extra_env}
    from flagscan.progress import RESOLVING, activity

    scenario = Scenario(gpu, env, facts, packages)
    with activity(RESOLVING):
        begin_startup_cold(rev, values, scenario)
        resolution = predict(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
    from flagscan.lint.findings import input_diagnostics

    errors = [f"{d.code} {d.message}" for d in input_diagnostics(parsed) if d.severity.value == "error"]
    result, startup = startup_blame(rev, values, scenario, resolution)
    return Launch(runtime_settings(resolution), resolution.rejections, set(values), runtime_env(resolution, env),
                  facts, errors, startup, result, packages)


def run_packages(rev: Revision, gpu: GpuProfile) -> Packages:
    """The run's packages on this GPU's vendor: the release's pins and the group's --package."""
    from flagscan.cli import Options
    from flagscan.evaluate.packages import PackageSpecError, for_revision

    ctx = click.get_current_context(silent=True)
    opts = ctx.find_root().obj if ctx is not None else None
    opts = opts if isinstance(opts, Options) else Options()
    try:
        return for_revision(rev.tree, rev.cache_dir, offline=opts.offline, pairs=opts.packages, vendor=gpu.vendor)[0]
    except PackageSpecError as exc:
        raise UserError(str(exc)) from None


def startup_blame(rev: Revision, values: dict[str, Any], scenario: Scenario,
                  resolution: Resolution) -> tuple[StartupResult | None, list[tuple[str, StartupRaise]]]:
    """The startup phase of the command, and (dest, raise) for each certain startup-phase raise and
    each setting of the command it is due to."""
    if resolution.rejections and any(getattr(r, "certain", False) for r in resolution.rejections):
        return None, []  # the resolution refuses the command: startup is not reached
    from flagscan.evaluate.startup.blame import due_to
    from flagscan.evaluate.startup.predict import predict_startup
    from flagscan.progress import STARTING, activity

    out: list[tuple[str, StartupRaise]] = []
    with activity(STARTING):
        result = predict_startup(rev.tree.root, rev.cache_dir, rev.inventory, values, scenario)
        for raised in result.rejections:
            if raised.certain and raised.phase == "startup":
                out.extend((dest, raised) for dest in due_to(rev.tree.root, rev.cache_dir, rev.inventory, values,
                                                             scenario, raised))
    return result, sorted(out, key=lambda p: (p[0], p[1].location))


def apply_startup(flags: dict[str, Any], launch: Launch) -> None:
    """A flag a certain startup raise is due to is REJECTED, with the raise as evidence."""
    for dest, raised in launch.startup:
        entry = flags.get(dest)
        if entry is None:
            continue
        entry["status"] = "REJECTED"
        evidence = {"location": raised.location, "condition": raised.condition, "message": raised.message,
                    "phase": "startup"}
        if evidence not in entry.setdefault("rejections", []):
            entry["rejections"].append(evidence)


def warn_parse_errors(launch: Launch) -> bool:
    """Say (stderr, even with -q: it is about the user's command) what in the launch command
    SGLang's own parser would refuse; True if any."""
    for error in dict.fromkeys(launch.parse_errors):
        click.echo(f"flagscan: the launch command: {error}; SGLang's parser would refuse the command", err=True)
    return bool(launch.parse_errors)


def check_flag(rev: Revision, name: str) -> str:
    """A dest or option string -> dest; an unknown one is a one-line error with did-you-mean."""
    import difflib

    dests = {f.dest: f for f in rev.inventory.flags}
    key = name.lstrip("-").replace("-", "_")
    if key in dests:
        return key
    for f in rev.inventory.flags:
        if name in f.options:
            return f.dest
    close = difflib.get_close_matches(key, list(dests), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UserError(f"no setting {name!r} in sglang {rev.tree.version or ''}{hint}".replace("  ", " "))


def gate_reports(rev: Revision, reads: TreeReads | Callable[[], TreeReads], gpus: list[tuple[str, GpuProfile]],
                 launch_of: Callable[[GpuProfile], Launch], flags: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """{gpu label: {"hardware", "flags"}} from the verdict cache or evaluated now (GPUs in parallel).
    `reads`: the tree's read facts, or a callable giving them (loaded only when something is not cached)."""
    from flagscan.evaluate.gates.cache import cached_json, gates_key
    from flagscan.evaluate.gates.run import apply_rejections, evaluate_gpu, gpu_json, in_parallel

    get_reads: Callable[[], TreeReads] = reads if callable(reads) else (lambda: reads)
    builds: dict[str, Callable[[], dict[str, Any]]] = {}
    keys: dict[str, str] = {}
    for label, profile in gpus:
        launch: Launch = launch_of(profile)

        def build(profile: GpuProfile = profile, launch: Launch = launch, label: str = label) -> dict[str, Any]:
            gg = evaluate_gpu(rev.tree.root, rev.cache_dir, rev.inventory, get_reads(), profile, env=launch.env,
                              model=launch.model, settings=launch.settings, flags=flags, label=label,
                              packages=launch.packages)
            apply_rejections(gg, launch.rejections, launch.user_dests)
            return gpu_json(gg)

        builds[label] = build
        if flags is None:
            keys[label] = gates_key(rev.tree.root, profile, launch.env, launch.model, launch.settings,
                                    launch.user_dests, sorted(f.dest for f in rev.inventory.flags), "report",
                                    launch.packages.key() if launch.packages is not None else None)
    cached = {label: cached_json(rev.cache_dir, key, None, _is_report) for label, key in keys.items()}
    todo = [label for label in builds if cached.get(label) is None]
    if todo:
        get_reads()  # loaded here, once, before the GPUs are spread over worker processes
    from flagscan.progress import GATING, activity

    with activity(GATING):
        built = in_parallel({label: builds[label] for label in todo})
    out: dict[str, dict[str, Any]] = {}
    for label in builds:
        hit = cached.get(label)
        if hit is not None:
            out[label] = hit
        elif label in keys:
            out[label] = _stored(rev.cache_dir, keys[label], built[label])
        else:
            out[label] = built[label]
    return out


def _stored(cache_dir: Path | None, key: str, doc: dict[str, Any]) -> dict[str, Any]:
    """A report built now, stored under its key; what comes back has been through JSON, as a hit has."""
    from flagscan.evaluate.gates.cache import cached_json

    stored = cached_json(cache_dir, key, lambda: doc, _is_report)
    return stored if isinstance(stored, dict) else doc


def _is_report(doc: Any) -> bool:
    return isinstance(doc, dict) and "flags" in doc


def lazy_reads(rev: Revision, quiet: bool = False) -> Callable[[], TreeReads]:
    """load_tree_reads(rev, quiet), called at most once and only when asked."""
    held: list[TreeReads] = []

    def get() -> TreeReads:
        if not held:
            held.append(load_tree_reads(rev, quiet))
        return held[0]

    return get


@click.command("report", cls=LaunchArgs)
@gate_source_options(GATE_FORMATS)
@scenario_options
@click.option("--kind", type=click.Choice(["systemd", "shell", "compose", "k8s", "argv"]), default=None)
@click.argument("file", required=False)
@click.pass_context
def report(ctx: click.Context, sglang: str | None, cache_dir: str | None, offline: bool, fmt: str | None,
           gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
           model_config: str | None, model_arch: str | None, env: tuple[str, ...], kind: str | None,
           file: str | None, argv: tuple[str, ...]) -> None:
    """Every flag's verdict on each GPU: EFFECTIVE, NO_OP, CONDITIONAL, UNREAD, REJECTED."""
    opts = merge_options(ctx, sglang=sglang, cache_dir=Path(cache_dir) if cache_dir else None, offline=offline)
    fmt = fmt or (ctx.obj.format if ctx.obj else "text")

    def body() -> int:
        from flagscan.commands.common import emit_json, open_revision
        from flagscan.report import gates_text

        gpus = gpu_list(gpu, gpu_count, gpu_memory, gpu_name, cuda)
        rev = open_revision(opts)
        reads = lazy_reads(rev, opts.quiet)   # a warm report needs no read facts
        launches: dict[int, Launch] = {}

        def launch_of(profile: GpuProfile) -> Launch:
            return launches.setdefault(id(profile), launch_for(rev, profile, file, argv, kind, env, model_config,
                                                               model_arch))

        reports = gate_reports(rev, reads, gpus, launch_of)
        for label, profile in gpus:
            apply_startup(reports[label]["flags"], launch_of(profile))
        given = bool(file or argv)
        errors = next(iter(launches.values())).parse_errors if given else []
        if given:
            warn_parse_errors(next(iter(launches.values())))
        if fmt == "json":
            extra = {"command_errors": errors} if given else {}
            if len(reports) == 1:
                only = next(iter(reports.values()))
                emit_json("report", {"hardware": only["hardware"], "flags": only["flags"],
                                     "stopped": only.get("stopped", []), **extra}, rev)
            else:
                emit_json("report", {"gpus": reports, **extra}, rev)
        else:
            click.echo(gates_text.render(reports, rev.tree.version or "", markdown=fmt == "markdown",
                                         command=given))
        if given:
            user = {d for label, _p in gpus for d in launches[id(_p)].user_dests}
            bad = [d for r in reports.values() for d, v in r["flags"].items()
                   if d in user and v["status"] in ("NO_OP", "REJECTED")]
            return Exit.FINDINGS if bad else Exit.OK
        return Exit.OK

    run_guarded(body)


COMMANDS = [report]
