"""Shared by the lint tests: run the linter on a launch file or an Example, as the CLI would."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from flagscan.lint import Example, LintOptions, Selection, Target, Upgrade, lint_file

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "fixtures" / "units"
MODELS = ROOT / "tests" / "data" / "groundtruth" / "models"


@cache
def target(spec: str, cache_dir: str) -> Target:
    from flagscan.extract import load_inventory
    from flagscan.source import get_source

    resolved = str(ROOT / spec) if "/" in spec else spec
    tree = get_source(resolved, cache_dir=Path(cache_dir))
    inventory, _ = load_inventory(tree.root, Path(cache_dir))
    return Target(tree.root, Path(cache_dir), inventory, tree.version or spec)


def options(spec: str, cache_dir: Path, *, gpu: str | None = "h200", model: str | None = None,
            select: tuple[str, ...] = ("ALL",), upgrade_to: str | None = None, fix: bool = False,
            **kwargs) -> LintOptions:
    from flagscan.evaluate import load_model
    from flagscan.hardware import profile_from_spec

    facts = load_model(str(ROOT / model), None, None) if model else None
    upgrade = None
    if upgrade_to:
        later = target(upgrade_to, str(cache_dir))
        upgrade = Upgrade(later.inventory, later.version, later.root, later.cache_dir)
    return LintOptions(target(spec, str(cache_dir)), profile_from_spec(gpu) if gpu else None, False, {},
                       (lambda _path: facts), Selection(select=select), None, upgrade, fix, **kwargs)


def run_example(example: Example, tmp_path: Path, cache_dir: Path, *, fix: bool = False):
    """Lint the example's command written to a plain command file; every rule selected."""
    path = tmp_path / "launch.cmd"
    path.write_text(example.command + "\n")
    return lint_file(str(path), options(example.sglang, cache_dir, gpu=example.gpu, model=example.model,
                                        upgrade_to=example.upgrade_to, fix=fix))
