"""Dump one SGLang release's REAL CLI parser as JSON (ground truth).

Runs INSIDE the throwaway ground-truth virtualenv (see README.md):

    python dump_inventory.py --sglang-root /tmp/fs-gt/src/0.5.10 --out 0.5.10.json

`--sglang-root` is the directory that CONTAINS the ``sglang/`` package of an
unpacked wheel. The script imports that release's ``sglang.srt.server_args``,
runs ``ServerArgs.add_cli_args(parser)`` on a fresh ``argparse.ArgumentParser()``
and records every action. It also records how the release's own
``prepare_server_args`` builds the parser for ``sglang serve`` (read from the
source with ``ast``, so that allow_abbrev is exactly what that code passes).
"""

from __future__ import annotations

import argparse
import ast
import enum
import inspect
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _registry_names(parser: argparse.ArgumentParser) -> dict[type, str]:
    names: dict[type, str] = {}
    for name, cls in parser._registries.get("action", {}).items():
        if name is None or not isinstance(cls, type):
            continue
        names.setdefault(cls, name)
    return names


def json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"float": repr(value)}
        return value
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, (set, frozenset)):
        items = [json_safe(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, type) or callable(value):
        return getattr(value, "__name__", None) or type(value).__name__
    if hasattr(value, "__fspath__"):
        return os.fspath(value)
    return {"repr": repr(value)}


def callable_name(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):  # argparse accepts registered type names
        return value
    name = getattr(value, "__name__", None)
    if name is None and hasattr(value, "func"):  # functools.partial
        name = getattr(value.func, "__name__", None)
    return name or type(value).__name__


def action_record(action: argparse.Action, registry: dict[type, str]) -> dict[str, Any]:
    cls = type(action)
    kind = registry.get(cls, cls.__name__)
    choices = action.choices
    if choices is not None:
        if isinstance(choices, (set, frozenset, list, tuple, dict)):
            choices = json_safe(choices if not isinstance(choices, dict) else list(choices))
        else:  # any other container argparse accepts (dict_keys, range...)
            choices = json_safe(list(choices))
    return {
        "options": list(action.option_strings),
        "dest": action.dest,
        "default": json_safe(action.default),
        "choices": choices,
        "action": kind,
        "action_class": f"{cls.__module__}.{cls.__qualname__}",
        "nargs": action.nargs,
        "const": json_safe(action.const),
        "required": bool(action.required),
        "type": callable_name(action.type),
        "metavar": json_safe(action.metavar),
        "help": action.help if isinstance(action.help, str) else json_safe(action.help),
    }


def _kw_value(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except Exception:
        return {"expr": ast.unparse(node)}


def prog_parser_facts(server_args_module: Any) -> dict[str, Any]:
    """How ``prepare_server_args`` builds the real ``sglang serve`` parser."""
    src_file = inspect.getsourcefile(server_args_module)
    tree = ast.parse(Path(src_file).read_text())
    found: list[dict[str, Any]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "prepare_server_args":
            for call in ast.walk(node):
                if not isinstance(call, ast.Call):
                    continue
                func = ast.unparse(call.func)
                if func.endswith("ArgumentParser"):
                    kwargs = {k.arg: _kw_value(k.value) for k in call.keywords if k.arg}
                    found.append(
                        {
                            "call": ast.unparse(call),
                            "line": call.lineno,
                            "kwargs": kwargs,
                        }
                    )
    found.sort(key=lambda c: c["line"])
    # The parser that parses argv is the one built at the function's top level
    # (0.5.5 also builds a throw-away one inside ``if "--config" in argv:``).
    top_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "prepare_server_args":
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                    if ast.unparse(stmt.value.func).endswith("ArgumentParser"):
                        top_lines.add(stmt.value.lineno)
    for c in found:
        c["top_level"] = c["line"] in top_lines
    primary = [c for c in found if c["top_level"]] or found[-1:]
    root = Path(src_file).resolve().parents[2]
    rel = os.path.relpath(src_file, root)
    facts: dict[str, Any] = {
        "function": "sglang.srt.server_args.prepare_server_args",
        "file": rel,
        "constructions": [dict(c, location=f"{rel}:{c['line']}") for c in found],
    }
    if primary:
        kw = primary[0]["kwargs"]
        facts["primary_location"] = f"{rel}:{primary[0]['line']}"
        facts["allow_abbrev"] = kw.get("allow_abbrev", True)
        facts["prog"] = kw.get("prog")
    else:
        facts["allow_abbrev"] = True
        facts["prog"] = None
    # Does prepare_server_args merge a YAML config file?
    text = ast.unparse(tree)
    facts["config_option"] = "--config" if "'--config' in argv" in text else None
    return facts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sglang-root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu-profile", default=None,
                    help="JSON GPU profile to simulate (default: none, CPU-only torch)")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(HERE))
    import gt_env

    gt_env.install_import_stubs()
    profile = json.loads(args.gpu_profile) if args.gpu_profile else None
    gt_env.simulate_gpu(profile)

    root = Path(args.sglang_root).resolve()
    sys.path.insert(0, str(root))
    import sglang

    if not str(Path(sglang.__file__).resolve()).startswith(str(root)):
        raise SystemExit(f"imported sglang from {sglang.__file__}, not from {root}")
    from sglang.srt import server_args as sa

    version = None
    try:
        from sglang.version import __version__ as version  # type: ignore
    except Exception:
        version = getattr(sglang, "__version__", None)

    parser = argparse.ArgumentParser()
    sa.ServerArgs.add_cli_args(parser)
    registry = _registry_names(parser)
    actions = [
        action_record(a, registry)
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction)
    ]
    import torch

    out = {
        "sglang": version,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": _pkg_version("transformers"),
        "sglang_root": "<unpacked wheel>",
        "prog_parser": prog_parser_facts(sa),
        "stubs": list(gt_env.STUB_LOG),
        "stubbed_modules_imported": gt_env.stubbed_modules(),
        "count": len(actions),
        "actions": actions,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"{version}: {len(actions)} actions -> {args.out}")
    return 0


def _pkg_version(name: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
