"""lint: the parser a launch command's flags are read with, for the program it runs
(rules/programs.toml: flagscan.inputs.programs), on this release (flagscan.extract.programs);
a program with no parser is said, with what it would need, never read with another's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.extract.errors import ExtractionError
from flagscan.extract.programs import module_path, parser_inventory
from flagscan.facts.flags import Inventory


@dataclass(frozen=True, slots=True)
class ParserChoice:
    """`inventory` None: no parser flagscan can read; `note` then says why and what it would need."""

    program: str | None
    parser: str | None
    inventory: Inventory | None
    note: str | None
    because: str
    warning: str | None = None   # said, but the parser is still the one chosen


def choose(root: Path, cache_dir: Path | None, default: Inventory, launcher: tuple[str, ...], args: list[str],
           model_files: frozenset[str] | None, console_scripts: dict[str, str] | None = None) -> ParserChoice:
    """The parser for a command's launcher and arguments on this release."""
    from flagscan.inputs.programs import chosen_parser, program_of

    program = program_of(launcher)
    if program is None:   # bare server arguments (a container whose image runs the server)
        return ParserChoice(None, "server", default, None, "server arguments only")
    shown = " ".join(launcher)
    if program.parser is None:
        return ParserChoice(program.name, None, None, f"`{shown}`: {program.needs}", "no parser")
    warning = None
    if program.console_script is not None:
        script = (console_scripts or {}).get(program.console_script)
        if console_scripts is not None and script != program.target:
            return ParserChoice(program.name, None, None,
                                f"`{shown}`: this release's wheel has no `{program.console_script}` console script "
                                f"running {program.target}", "no such program")
        target_module = (program.target or "").split(":")[0]
        if console_scripts is None and target_module and module_path(root, target_module) is None:
            # no wheel metadata to say what the script runs, and not its module either
            warning = (f"`{shown}`: this tree has no {target_module}, which the `{program.console_script}` "
                       f"script runs; its flags are read with the {program.parser} parser")
    parser, because = chosen_parser(program, args, model_files)
    if parser is None:
        return ParserChoice(program.name, None, None, f"`{shown}`: {because}, which has no parser here", because)
    try:
        inventory = parser_inventory(root, cache_dir, parser, default)
    except ExtractionError as exc:
        return ParserChoice(program.name, parser, None, f"`{shown}` ({because}): {exc}", because)
    return ParserChoice(program.name, parser, inventory, None, because, warning)


def for_command(target: Any, command: Any, model_config: Any = None) -> tuple[Inventory | None, str | None]:
    """The inventory a launch command's flags are read with on `target` (a revision: tree root,
    cache_dir, inventory), and a one-line note when it is not the language-model server's
    (or there is none: then the inventory is None)."""
    from flagscan.source.release_meta import release_meta

    args = [a.text for a in command.args]
    model_path = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--model-path"), None)
    tree = getattr(target, "tree", None)
    meta = release_meta(tree, target.cache_dir, offline=True)[0] if tree is not None else None
    scripts = dict(meta.console_scripts) if meta is not None else None
    root = tree.root if tree is not None else target.root
    choice = choose(root, target.cache_dir, target.inventory, command.launcher, args,
                    model_files(model_config, model_path), scripts)
    where = f"{command.path}:{command.line}"
    if choice.inventory is None:
        return None, f"{where}: {choice.note}; its flags are not checked"
    if choice.parser != "server":
        return choice.inventory, f"{where}: flags read with the {choice.parser} parser ({choice.because})"
    return choice.inventory, f"{where}: {choice.warning}" if choice.warning else None


def model_files(model_config: Any, model_path: Any) -> frozenset[str] | None:
    """The file names of the model's directory (--model-config DIR, else --model-path when it is a
    local directory); None when no directory is at hand."""
    for candidate in (model_config, model_path):
        if isinstance(candidate, str) and candidate:
            path = Path(candidate)
            if path.is_file():
                path = path.parent
            if path.is_dir():
                return frozenset(p.name for p in path.iterdir())
    return None


__all__ = ["ParserChoice", "choose", "for_command", "model_files"]
