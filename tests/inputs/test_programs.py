"""inputs: which program a launch command runs decides the parser that reads its flags
(rules/programs.toml); a program flagscan has no parser for is said, never read as another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.inputs.programs import chosen_parser, program_of, programs
from flagscan.ruledata import load
from tests.conftest import TREES

LINT_TREE = TREES / "lint"


@pytest.mark.parametrize("launcher, program", [
    (("python3", "-m", "sglang.launch_server"), "launch_server"),
    (("python", "-msglang.launch_server"), "launch_server"),
    (("/opt/venv/lib/python3.11/site-packages/sglang/launch_server.py",), "launch_server"),
    (("/usr/local/bin/sglang", "serve"), "serve"),
    (("sglang", "generate"), "generate"),
    (("python", "-m", "sglang_router.launch_server"), "router"),
    ((), None),
])
def test_the_launcher_names_the_program(launcher, program) -> None:
    found = program_of(launcher)
    assert (found.name if found else None) == program


@pytest.mark.parametrize("args, files, parser", [
    (["--model-path", "m", "--model-type", "diffusion"], None, "diffusion"),
    (["--model-type=llm", "--model-path", "m"], frozenset({"model_index.json"}), "server"),
    (["--model-path", "m"], frozenset({"model_index.json", "unet"}), "diffusion"),
    (["--model-path", "m"], frozenset({"config.json"}), "server"),
    (["--model-path", "m"], None, "server"),
])
def test_sglang_serve_dispatches_diffusion_models_to_their_parser(args, files, parser) -> None:
    serve = next(p for p in programs() if p.name == "serve")
    assert chosen_parser(serve, args, files)[0] == parser


def test_every_program_has_a_parser_or_says_what_it_needs() -> None:
    data = load("programs")
    parsers = set(data["parser"])
    for entry in data["program"]:
        assert entry.get("modules") or entry.get("console_script"), entry["name"]
        assert (entry.get("parser") in parsers) != bool(entry.get("needs")), entry["name"]
        assert set(entry.get("dispatch", {}).values()) <= parsers
    assert data["parser"]["server"]["inventory"] == "cli"
    assert {"modules", "class", "method"} <= set(data["parser"]["diffusion"])


def _resolve(cache: Path, *argv: str):
    return CliRunner().invoke(main, ["--sglang", str(LINT_TREE), "--cache-dir", str(cache), "-q", "resolve", "--gpu",
                                     "h200", "--no-startup", "--", *argv])


@pytest.mark.parametrize("argv, words", [
    (["python", "-m", "sglang_router.launch_server", "--model-path", "m", "--dp-size", "2"], "sglang-router"),
    (["sglang", "generate", "--model-path", "m"], "not a server"),
    (["sglang", "serve", "--model-type", "diffusion", "--model-path", "m"], "diffusion"),
])
def test_resolve_of_another_program_is_a_one_line_error(tmp_path, argv, words) -> None:
    result = _resolve(tmp_path / "cache", *argv)
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


def test_resolve_of_the_server_programs_still_works(tmp_path) -> None:
    for argv in (["python", "-m", "sglang.launch_server", "--model-path", "m"], ["sglang", "serve", "--model-path", "m"]):
        assert _resolve(tmp_path / "cache", *argv).exit_code in (0, 1)


def test_lint_does_not_read_router_flags_with_the_server_parser(tmp_path) -> None:
    unit = tmp_path / "router.service"
    unit.write_text("[Service]\nExecStart=/usr/bin/python3 -m sglang_router.launch_server --model-path m "
                    "--router-policy cache_aware\n")
    result = CliRunner().invoke(main, ["--sglang", str(LINT_TREE), "--cache-dir", str(tmp_path / "cache"), "-q",
                                       "lint", str(unit), "--format", "json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 0 and doc["diagnostics"] == []     # no FS001 for the router's own flags
    assert any("sglang_router" in n and "not checked" in n for n in doc["notes"])
