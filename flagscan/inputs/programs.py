"""inputs: which SGLang program a launch command runs, from its launcher words (rules/programs.toml)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flagscan.ruledata import load


@dataclass(frozen=True, slots=True)
class Program:
    """A program a launcher starts: `parser` names the parser that reads its flags (None: flagscan
    has none, and `needs` says what it would take); `dispatch` maps a `dispatch_option` value
    to a parser (`sglang serve --model-type diffusion`)."""

    name: str
    parser: str | None
    needs: str | None = None
    modules: tuple[str, ...] = ()
    console_script: str | None = None
    target: str | None = None
    subcommand: str | None = None
    dispatch_option: str | None = None
    dispatch: tuple[tuple[str, str], ...] = ()
    diffusion_marker: str | None = None


def programs() -> tuple[Program, ...]:
    out = []
    for entry in load("programs").get("program", []):
        out.append(Program(
            entry["name"], entry.get("parser"), entry.get("needs"), tuple(entry.get("modules", [])),
            entry.get("console_script"), entry.get("target"), entry.get("subcommand"), entry.get("dispatch_option"),
            tuple(sorted(entry.get("dispatch", {}).items())), entry.get("diffusion_marker")))
    return tuple(out)


def _module_file(text: str, module: str) -> bool:
    return text.endswith(module.replace(".", "/") + ".py")


def launcher_end(words: Sequence[Any], start: int) -> tuple[int, Program] | None:
    """Where the launcher in `words[start:]` ends and which program it starts: `-m MODULE`,
    `-mMODULE`, the module's file, or a console script followed by its subcommand."""
    known = programs()
    for j in range(start, len(words)):
        text = words[j].text
        following = words[j + 1].text if j + 1 < len(words) else None
        for program in known:
            for module in program.modules:
                if text == "-m" and following == module:
                    return j + 2, program
                if text == f"-m{module}" or _module_file(text, module):
                    return j + 1, program
            if program.console_script and text.rsplit("/", 1)[-1] == program.console_script \
                    and following == program.subcommand:
                return j + 2, program
    return None


def program_of(launcher: Sequence[str]) -> Program | None:
    """The program of a launch command's launcher words (None: bare server arguments)."""

    class _W:
        __slots__ = ("text",)

        def __init__(self, text: str) -> None:
            self.text = text

    found = launcher_end([_W(t) for t in launcher], 0) if launcher else None
    return found[1] if found is not None else None


def chosen_parser(program: Program, args: Sequence[str], model_dir_files: frozenset[str] | None) -> tuple[str | None, str]:
    """The parser that reads the flags, and why: the program's own, or what its dispatcher picks
    (an explicit `--model-type`, else the model's files: a diffusers model_index.json). With the
    model's files not known, the dispatcher's default (the language-model server) is said as such."""
    table = dict(program.dispatch)
    if program.dispatch_option and table:
        option = program.dispatch_option
        for i, text in enumerate(args):
            value = text.split("=", 1)[1] if text.startswith(option + "=") else (
                args[i + 1] if text == option and i + 1 < len(args) else None)
            if value is not None and value in table:
                return table[value], f"{option} {value}"
        if program.diffusion_marker and model_dir_files is not None and program.diffusion_marker in model_dir_files:
            return table.get("diffusion"), f"the model has {program.diffusion_marker} (a diffusion model)"
        if model_dir_files is None:
            return program.parser, "the model's files are not at hand; a diffusion model would be read by the diffusion parser"
    return program.parser, f"{program.name} reads its flags with the {program.parser} parser"


__all__ = ["Program", "chosen_parser", "launcher_end", "program_of", "programs"]
