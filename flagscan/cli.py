"""cli: the click command group (thin: parse options, call the library, render)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any, TypeVar

import click

from flagscan import __version__


class Exit(IntEnum):
    OK = 0
    FINDINGS = 1
    USAGE = 2


class UserError(Exception):
    """Bad input; printed as one line, exit code 2."""


FORMATS = ("text", "json")
F = TypeVar("F", bound=Callable[..., Any])  # a click command function, as an option decorator returns it


@dataclass(frozen=True, slots=True)
class Options:
    sglang: str | None = None
    cache_dir: Path | None = None
    offline: bool = False
    sglang_repo: str | None = None
    format: str = "text"
    quiet: bool = False
    packages: tuple[str, ...] = ()   # --package NAME=VERSION|absent, in the order given


def merge_options(ctx: click.Context, **overrides: Any) -> Options:
    """Group options, overridden by the same options given on the subcommand."""
    base: Options = ctx.obj or Options()
    given = {k: v for k, v in overrides.items() if v not in (None, False)}
    return replace(base, **given)


def source_options(fn: F) -> F:
    fn = click.option("--sglang", "sglang", metavar="REV", default=None,
                      help="SGLang revision: 0.5.10, v0.5.10, a commit, a path, a wheel, or 'installed'.")(fn)
    fn = click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
                      help="Cache directory (default: $FLAGSCAN_CACHE_DIR or ~/.cache/flagscan).")(fn)
    fn = click.option("--offline", is_flag=True, default=False, help="Use the cache only.")(fn)
    fn = click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format.")(fn)
    return fn


def package_option(fn: F) -> F:
    return click.option("--package", "package", multiple=True, metavar="NAME=VERSION",
                        help="A package's version as installed (NAME=absent: not installed); overrides the "
                             "release's pins (repeatable).")(fn)


class LaunchArgs(click.Command):
    """A command that takes a launch command after `--`: its own options go anywhere before
    the `--` (after a FILE too), and every word after the first `--` is the launch argv
    (the `argv` parameter), never read as an option of flagscan."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = list(args)
        tail: tuple[str, ...] = ()
        if "--" in args:
            at = args.index("--")
            args, tail = args[:at], tuple(args[at + 1:])
        rest = super().parse_args(ctx, args)
        ctx.params["argv"] = tail
        return rest


def run_guarded(action: Callable[[], int]) -> None:
    """Run a command body; bad input becomes one line on stderr and exit code 2."""
    try:
        code = action()
    except _user_errors() as exc:
        click.echo(f"flagscan: error: {exc}", err=True)
        sys.exit(Exit.USAGE)
    except KeyboardInterrupt:
        click.echo("flagscan: interrupted", err=True)
        sys.exit(130)
    sys.exit(code)


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean bad input, one per stage that reads user-provided things."""
    from flagscan.extract.errors import ExtractionError
    from flagscan.ruledata import RuleDataError
    from flagscan.source import SourceError

    errors: list[type[BaseException]] = [UserError, SourceError, ExtractionError, RuleDataError]
    try:
        from flagscan.inputs import InputError
        errors.append(InputError)
    except ImportError:  # pragma: no cover - only while the package is incomplete
        pass
    return tuple(errors)


def progress(opts: Options) -> Callable[[str], None]:
    def say(message: str) -> None:
        if not opts.quiet:
            click.echo(f"flagscan: {message}", err=True)
    return say


class _Group(click.Group):
    """The command group; a usage error (unknown option, bad option value) is one line on
    stderr and exit code 2, like any other bad input. Commands are imported when first asked for."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            _register(cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register()
        return super().list_commands(ctx)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        # The analysis allocates millions of small lists and dicts that live to the end
        # (lowered modules, abstract states): with CPython's default first-generation
        # threshold (700) the collector runs thousands of times over them. Rarer
        # collections, as mypy does for the same reason.
        import gc

        gc.set_threshold(50_000, 20, 100)
        try:
            return super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `flagscan` alone: the help, as click shows it
                exc.show()
                sys.exit(exc.exit_code)
            command = exc.ctx.command_path if exc.ctx is not None else "flagscan"
            click.echo(f"flagscan: error: {exc.format_message()} (see {command} --help)", err=True)
            sys.exit(Exit.USAGE)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("flagscan: interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="flagscan")
@click.option("--sglang", "sglang", metavar="REV", default=None,
              help="SGLang revision to analyse (default: the project pin, the installed SGLang, "
                   "else the default pin in rules/sources.toml).")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Cache directory (default: $FLAGSCAN_CACHE_DIR or ~/.cache/flagscan).")
@click.option("--offline", is_flag=True, default=False, help="Use only what is cached; never touch the network.")
@click.option("--sglang-repo", metavar="URL", default=None, help="Git URL of SGLang (default: upstream GitHub).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@click.option("-q", "--quiet", is_flag=True, default=False, help="No progress messages on stderr.")
@package_option
@click.pass_context
def main(ctx: click.Context, sglang: str | None, cache_dir: Path | None, offline: bool, sglang_repo: str | None,
         fmt: str, quiet: bool, package: tuple[str, ...]) -> None:
    """flagscan: what your SGLang launch flags will really do on your GPU, read from SGLang's own source."""
    from flagscan.progress import set_quiet

    set_quiet(quiet)
    ctx.obj = Options(sglang, cache_dir, offline, sglang_repo, fmt, quiet, tuple(package))


def _register(name: str | None = None) -> None:
    """Every `flagscan/commands/*_cmd.py` module lists its click commands in COMMANDS. With a
    name, only `<name>_cmd` is imported when it has that command (a run imports the one command
    it runs, not all twelve with their dependencies); otherwise, or when it has not, all are."""
    import importlib
    import pkgutil

    import flagscan.commands as package

    infos = sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)
    if name is not None and f"{name}_cmd" in {i.name for i in infos}:
        module = importlib.import_module(f"flagscan.commands.{name}_cmd")
        commands = getattr(module, "COMMANDS", ())
        if any(c.name == name for c in commands):
            for command in commands:
                main.add_command(command)
            return
    for info in infos:
        if info.name.endswith("_cmd"):
            module = importlib.import_module(f"flagscan.commands.{info.name}")
            for command in getattr(module, "COMMANDS", ()):
                if command.name not in main.commands:
                    main.add_command(command)


def run() -> None:
    """The console entry point (`flagscan`, `python -m flagscan`): main(), then leave without
    tearing the interpreter down. Freeing a warm run's objects one by one at exit (the cached
    resolution read back, the modules) took 40-100 ms of a 0.4 s run, so exit handlers run and
    the streams are flushed, and the process ends there, as mypy's does."""
    try:
        main()
    except SystemExit as exc:
        _leave(exc.code)
    _leave(0)


def _leave(code: Any) -> None:
    import atexit
    import os

    atexit._run_exitfuncs()   # temporary directories, worker pools: what a normal exit would run
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)   # sys.exit("message"): printed, status 1
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass   # a closed pipe (`| head`): nothing more can be written
    os._exit(code or 0)
