"""verify: run the INSTALLED SGLang's own argument parsing and resolution (a standalone script).

`flagscan verify --local` runs this file with the Python that holds SGLang, in a separate
process: `python probe.py --out RESULT.json [--stub-missing] -- <sglang serve argv>`.
It imports `sglang.srt.server_args`, calls the release's `prepare_server_args(argv)`
(and `resolve_once()` from 0.5.20), on the real GPU, and writes the resolved record,
the warnings SGLang logged with their `sglang/...:line`, a rejection if SGLang raised,
and what torch sees of the GPU. It loads no weights and starts no server or process
(what `sglang serve` does next: `launch_server`, never called here).

This file imports nothing from flagscan: it must run under SGLang's own interpreter.
`--stub-missing` replaces GPU-kernel packages that are NOT installed (sgl_kernel,
flashinfer, ...) by inert modules, so resolution can run where only SGLang's Python
dependencies are installed; the result lists them. Installed packages are never replaced.
"""

from __future__ import annotations

import argparse
import collections.abc
import contextlib
import dataclasses
import enum
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import logging
import math
import os
import sys
import traceback
import types
import warnings
from typing import Any

# Compiled kernels and engines that SGLang imports at module level; argument resolution
# itself never calls into them. Only stubbed when absent and --stub-missing is given. The
# list is rules/stubs.json, shared with the ground-truth scripts (tests/differential/gt_env.py).
STUB_LIST = "stubs.json"


def kernel_packages() -> tuple[str, ...]:
    """rules/stubs.json `packages` and `probe.also`: beside this package in a wheel
    (flagscan/rules/), at the top of a source checkout (rules/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for rules in (os.path.join(here, os.pardir, "rules"), os.path.join(here, os.pardir, os.pardir, "rules")):
        path = os.path.join(rules, STUB_LIST)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            return tuple(data["packages"]) + tuple(data["probe"]["also"])
    raise SystemExit(f"probe: rules/{STUB_LIST} not found beside {here} (needed by --stub-missing)")


STUBBED: list[str] = []


class _StubMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (_Stub,), {"__qualname__": f"{cls.__qualname__}.{name}"})

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator
        return type.__call__(cls)

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __iter__(cls) -> collections.abc.Iterator[Any]:
        return iter(())

    def __bool__(cls) -> bool:
        return False

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__


class _Stub(metaclass=_StubMeta):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """A stubbed type in a pydantic model (xgrammar.StructuralTag in SGLang's protocol) accepts anything."""
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (_Stub,), {"__qualname__": name})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return args[0] if len(args) == 1 and not kwargs and callable(args[0]) else _Stub()

    def __iter__(self) -> collections.abc.Iterator[Any]:
        return iter(())

    def __bool__(self) -> bool:
        return False


class _StubModule(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []
        self.__version__ = "0.0.0+stub"
        self.__file__ = f"<stub {name}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _StubMeta(name, (_Stub,), {"__qualname__": f"{self.__name__}.{name}"})
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if spec.name not in STUBBED:
            STUBBED.append(spec.name)
        return _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def install_stubs() -> None:
    missing = set()
    for name in kernel_packages():
        try:
            if importlib.util.find_spec(name) is None:
                missing.add(name)
        except (ImportError, ValueError):
            missing.add(name)
    if missing:
        sys.meta_path.append(_StubFinder(missing))


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        self.records.append({"location": f"{_rel(record.pathname)}:{record.lineno}",
                             "level": record.levelname, "message": message})


def _rel(path: str) -> str:
    marker = os.sep + "sglang" + os.sep
    return path[path.rindex(marker) + 1:].replace(os.sep, "/") if marker in path else path


def json_safe(value: Any, depth: int = 0) -> Any:
    if depth > 50:
        return repr(value)
    if isinstance(value, enum.Enum):
        return json_safe(value.value, depth + 1)
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((json_safe(v, depth + 1) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_safe(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return repr(value)


def resolved(obj: Any) -> dict[str, Any]:
    if hasattr(obj, "resolved_dict"):
        data = obj.resolved_dict()
    else:
        data = {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
    data.pop("model_config", None)
    return {k: json_safe(v) for k, v in data.items()}


def gpu_facts() -> dict[str, Any]:
    facts: dict[str, Any] = {}
    try:
        import torch

        facts["torch"] = torch.__version__
        facts["torch_cuda"] = torch.version.cuda
        facts["torch_hip"] = getattr(torch.version, "hip", None)
        facts["cuda_available"] = torch.cuda.is_available()
        if facts["cuda_available"]:
            facts["device_count"] = torch.cuda.device_count()
            facts["name"] = torch.cuda.get_device_name(0)
            facts["capability"] = list(torch.cuda.get_device_capability(0))
            facts["memory_mib"] = torch.cuda.get_device_properties(0).total_memory // (1 << 20)
    except Exception as exc:  # facts are informative only
        facts["error"] = f"{type(exc).__name__}: {exc}"
    return facts


def parser_error(text: str) -> str:
    """argparse's `prog: error: ...` line (the last one), else the last line written."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    return (errors or lines or [""])[-1]


def run(argv: list[str]) -> dict[str, Any]:
    capture = _Capture()
    sglang_logger = logging.getLogger("sglang")
    sglang_logger.addHandler(capture)
    result: dict[str, Any] = {"argv": argv, "resolved": None, "rejection": None}
    try:
        import sglang
        from sglang.srt import server_args as sa
    except BaseException as exc:
        result["import_error"] = f"{type(exc).__name__}: {exc}"
        result["trace"] = traceback.format_exc()[-3000:]
        return result
    result["sglang"] = getattr(sglang, "__version__", None)
    result["sglang_dir"] = os.path.dirname(os.path.dirname(os.path.abspath(sglang.__file__)))
    obj = None
    parser_said = io.StringIO()  # argparse writes its usage and error to sys.stderr, then exits
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stderr(parser_said):
                obj = sa.prepare_server_args(list(argv))
            if capture not in sglang_logger.handlers:
                sglang_logger.addHandler(capture)
            if hasattr(obj, "resolve_once"):
                obj.resolve_once()
        except BaseException as exc:  # a rejection, or argparse's SystemExit
            frames = [(f"{_rel(f.f_code.co_filename)}:{line}", f.f_code.co_name)
                      for f, line in traceback.walk_tb(exc.__traceback__)
                      if os.sep + "sglang" + os.sep in f.f_code.co_filename]
            result["rejection"] = {"exception": type(exc).__name__, "message": str(exc),
                                   "location": frames[-1][0] if frames else None}
            if isinstance(exc, SystemExit):
                result["rejection"]["message"] = parser_error(parser_said.getvalue()) or str(exc)
    said = parser_said.getvalue()
    if said:
        sys.stderr.write(said)  # still there for whoever reads the probe's stderr
        result["parser_stderr"] = said[-4000:]
    if obj is not None:
        result["resolved"] = resolved(obj)
    result["warnings"] = capture.records + [
        {"location": f"{_rel(w.filename)}:{w.lineno}", "level": "PYWARNING", "message": str(w.message)}
        for w in caught if os.sep + "sglang" + os.sep in w.filename]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stub-missing", action="store_true")
    ap.add_argument("argv", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if args.stub_missing:
        install_stubs()
    result = run(argv)
    result["gpu"] = gpu_facts()
    result["python"] = sys.version.split()[0]
    result["stubbed"] = sorted(STUBBED)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, default=repr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
