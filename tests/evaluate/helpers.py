"""Tiny SGLang-shaped trees run through the abstract interpreter (evaluate stage)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal, Unknown
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for directory in {p.parent for p in root.rglob("*.py")}:
        if directory != root and not (directory / "__init__.py").exists():
            (directory / "__init__.py").write_text("")
    return root


def run(tmp_path: Path, source: str, function: str = "main", args: tuple = (),
        env: dict[str, str] | None = None, env_open: bool = False) -> tuple[Any, Interpreter]:
    """Run `function` of module `sglang.srt.mod` (source given) and return (value, interpreter)."""
    root = write_tree(tmp_path / "tree", {"sglang/srt/mod.py": source})
    world = World(profile_from_spec("h200"), dict(env or {}), env_open=env_open)
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), world)
    state = State({}, {})
    module = interp.import_module("sglang.srt.mod", state)
    assert isinstance(module, ModuleVal)
    fn = interp.deref(module.globals[function], state)
    try:
        value = interp.call(fn, list(args), {}, state, module)
    except Dead:
        value = Dead
    return value, interp


def options(value: Any) -> set[Any] | None:
    """The values an Unknown may take (None: any), or {value} for a known one."""
    if isinstance(value, Unknown):
        return None if value.options is None else set(value.options)
    return {value}


def resolve_json(cache: Path, sglang: str, *args: str) -> tuple[int, dict]:
    """`flagscan --sglang SGLANG resolve --format json ARGS` from the repository root: (exit code, JSON)."""
    import json
    import os

    from click.testing import CliRunner

    from flagscan.cli import main
    from tests.conftest import ROOT

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, ["--sglang", sglang, "--cache-dir", str(cache), "-q", "resolve",
                                           "--format", "json", *args])
    finally:
        os.chdir(old)
    # a traceback inside flagscan (a GaveUp under FLAGSCAN_STRICT=1 among them) is never an answer
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def run_startup_entries(interp: Any, rules: dict[str, Any], settings: dict[str, Any]) -> Any:
    """Build the fixture tree's ServerArgs with `settings` and run the startup entries of `rules`
    on it (what the startup phase does after the resolution)."""
    from flagscan.evaluate.interp.values import ClassVal
    from flagscan.evaluate.startup.run import run_entries

    state = State({}, {})
    module = interp.import_module("sglang.srt.server_args", state)
    assert isinstance(module, ModuleVal)
    cls = interp.deref(module.globals["ServerArgs"], state)
    assert isinstance(cls, ClassVal)
    return run_entries(interp, state, interp.call(cls, [], settings, state, module), rules)
