"""Run one SGLang release's own argument parsing + resolution (ground truth).

Runs INSIDE the throwaway ground-truth virtualenv (see README.md). Single case::

    python resolve_one.py --sglang-root /tmp/fs-gt/src/0.5.10 \
        --gpu '{"vendor": "nvidia", "capability": [12, 0], "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "memory_mib": 97887, "count": 4, "cuda": "12.9"}' \
        --env '{}' -- --model-path tests/data/groundtruth/models/qwen3.5-122b-a10b --tp 4

prints one case record as JSON. Batch mode (used by record_resolutions.py)::

    python resolve_one.py --sglang-root DIR --gpu JSON --env JSON --batch cases.jsonl --out results.jsonl

imports SGLang once with that simulated GPU and environment, then forks one
child per case (``{"id", "argv"}`` per line) with a per-case timeout, so a
hanging or crashing case only loses itself.

What is recorded (``record_case``): ``parsed`` (field values after argparse and
before resolution), ``resolved`` (every field after resolution), ``changed``
(``{field: [before, after]}``), ``changed_by`` (which resolution step wrote
which field: ``_handle_*`` methods up to 0.5.18, ``run_hook`` steps and the
``declare_resolution`` source from 0.5.20), ``error`` (a startup rejection:
exception type, message and the raising SGLang line), ``warnings`` (logger
records at WARNING or above, and ``warnings.warn``, with ``sglang/...:line``),
``info`` (INFO records), ``env_set`` (environment variables resolution set).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import logging
import os
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gt_env  # noqa: E402
from dump_inventory import json_safe as _json_safe_base  # noqa: E402

SGLANG_ROOT: Path | None = None
MODELS_ROOT = str((HERE.parent / "data" / "groundtruth" / "models").resolve())


def _rel(path: str) -> str:
    """``/tmp/fs-gt/src/0.5.10/sglang/srt/x.py`` -> ``sglang/srt/x.py``."""
    marker = "/sglang/"
    if SGLANG_ROOT is not None and path.startswith(str(SGLANG_ROOT) + "/"):
        return path[len(str(SGLANG_ROOT)) + 1:]
    if marker in path:
        return path[path.rindex(marker) + 1:] if "site-packages" not in path else path
    return path


def _scrub(text: str) -> str:
    text = text.replace(MODELS_ROOT, "<models>")
    if SGLANG_ROOT is not None:
        text = text.replace(str(SGLANG_ROOT) + "/", "")
    return text


def json_safe(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            value = dataclasses.asdict(value)
        except Exception:
            return {"repr": _scrub(repr(value))}
    out = _json_safe_base(value)
    return _scrub_tree(out)


def _scrub_tree(value: Any) -> Any:
    if isinstance(value, str):
        return _scrub(value)
    if isinstance(value, list):
        return [_scrub_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_tree(v) for k, v in value.items()}
    return value


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _record_json(record: logging.LogRecord) -> dict[str, Any]:
    try:
        message = record.getMessage()
    except Exception:
        message = str(record.msg)
    return {
        "location": f"{_rel(record.pathname)}:{record.lineno}",
        "level": record.levelname,
        "logger": record.name,
        "message": _scrub(message),
    }


def _raise_details(exc: BaseException) -> dict[str, Any]:
    """Where in SGLang the exception was raised, and in which resolution step."""
    frames = []
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        name = frame.f_code.co_filename
        if "/sglang/" in name:
            frames.append((f"{_rel(name)}:{lineno}", frame.f_code.co_name))
    handler = None
    for _, func in frames:
        if func.startswith("_handle_") or func.startswith("handle_"):
            handler = func
    return {
        "location": frames[-1][0] if frames else None,
        "function": frames[-1][1] if frames else None,
        "handler": handler,
        "trace": [f"{loc} {func}" for loc, func in frames[-6:]],
    }


# ---------------------------------------------------------------------------
# Era-specific hooks
# ---------------------------------------------------------------------------

class Recorder:
    """Captures parsed values and per-step writes for one ServerArgs resolution."""

    def __init__(self, sa_module: Any) -> None:
        self.sa = sa_module
        self.ServerArgs = sa_module.ServerArgs
        self.new_era = hasattr(self.ServerArgs, "resolve_once")
        self.parsed: dict[str, Any] | None = None
        self.steps: list[dict[str, Any]] = []
        self.attributed: set[tuple[int, int]] = set()
        self.hook_of_index: dict[int, str] = {}
        self.instance: Any = None

    # -- field lists ---------------------------------------------------------
    def field_names(self) -> list[str]:
        if self.new_era:
            from sglang.srt.arg_groups.arg_utils import record_fields

            return [f.name for f in record_fields(self.ServerArgs)]
        return [f.name for f in dataclasses.fields(self.ServerArgs)]

    def snapshot(self, obj: Any) -> dict[str, Any]:
        return {name: getattr(obj, name, None) for name in self.field_names()}

    # -- old era: __post_init__ + _handle_* ----------------------------------
    def install_old(self) -> None:
        cls = self.ServerArgs
        original_post_init = cls.__post_init__
        recorder = self

        def post_init(self_: Any) -> None:
            recorder.instance = self_
            recorder.parsed = dict(recorder.snapshot(self_))
            original_post_init(self_)

        cls.__post_init__ = post_init
        for name in list(vars(cls)):
            if not name.startswith("_handle_"):
                continue
            fn = vars(cls)[name]
            if not callable(fn):
                continue
            setattr(cls, name, self._wrap_handler(name, fn))
        # 0.5.14-0.5.18 also call module-level hooks from __post_init__
        # (``from sglang.srt.arg_groups.x_hook import handle_y; handle_y(self)``):
        # the import reads the module attribute at call time, so wrap it there.
        for module in _arg_group_modules():
            for name, fn in list(vars(module).items()):
                if (name.startswith("handle_") and callable(fn)
                        and getattr(fn, "__module__", None) == module.__name__):
                    setattr(module, name, self._wrap_handler(name, fn))

    def _wrap_handler(self, name: str, fn: Any) -> Any:
        recorder = self

        def wrapper(self_: Any, *args: Any, **kwargs: Any) -> Any:
            before = recorder.snapshot(self_)
            start = len(recorder.steps)
            stash_start = len(getattr(self_, "_resolved_overrides", None) or ())
            try:
                return fn(self_, *args, **kwargs)
            finally:
                after = recorder.snapshot(self_)
                # 0.5.18 (transitional): passes declare into a stash that is
                # applied to the fields only at the end of resolution.
                stash = list(getattr(self_, "_resolved_overrides", None) or ())
                if len(stash) < stash_start:  # the stash was reset by this step
                    stash_start = 0
                for index in range(stash_start, len(stash)):
                    if (id(self_), index) in recorder.attributed:
                        continue
                    recorder.attributed.add((id(self_), index))
                    entry = stash[index]
                    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], dict):
                        for field, value in entry[1].items():
                            recorder.steps.append({"step": name, "source": str(entry[0]),
                                                   "field": field, "after": value})
                inner = {s["field"] for s in recorder.steps[start:]}
                for field, old in before.items():
                    new = after[field]
                    if field in inner or _same(old, new):
                        continue
                    recorder.steps.append({"step": name, "field": field,
                                           "before": old, "after": new})

        wrapper.__name__ = name
        wrapper.__wrapped__ = fn
        return wrapper

    # -- new era: resolve_once -> run_resolution_pipeline -> run_hook -------
    def install_new(self) -> None:
        from sglang.srt.arg_groups import pipeline

        original = pipeline.run_hook
        recorder = self

        def run_hook(builtin: Any, server_args: Any, *args: Any, **kwargs: Any) -> Any:
            stash = getattr(server_args, "_resolved_overrides", None) or []
            start = len(stash)
            try:
                return original(builtin, server_args, *args, **kwargs)
            finally:
                stash = getattr(server_args, "_resolved_overrides", None) or []
                name = getattr(builtin, "__name__", str(builtin))
                for index in range(start, len(stash)):
                    recorder.hook_of_index.setdefault(index, name)

        pipeline.run_hook = run_hook

    def new_era_steps(self, obj: Any, changed: dict[str, Any]) -> None:
        """From 0.5.20 every write is a declaration in ``_resolved_overrides``:
        (source, {field: value}) in order. Each is attributed to the ``run_hook``
        step that made it, or to ``run_resolution_pipeline`` for a pass the
        pipeline calls inline. A changed field with no declaration took its
        field's declared fallback (``resolution_result``/``with_fallback``)."""
        stash = list(getattr(obj, "_resolved_overrides", None) or ())
        declared: set[str] = set()
        for index, entry in enumerate(stash):
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], dict)):
                continue
            source, fields = entry
            for field, value in fields.items():
                declared.add(field)
                self.steps.append({"step": self.hook_of_index.get(index, "run_resolution_pipeline"),
                                   "source": str(source), "field": field, "after": value})
        for field in sorted(set(changed) - declared):
            self.steps.append({"step": "declared_fallback", "field": field,
                               "after": changed[field]})

    def resolved(self, obj: Any) -> dict[str, Any]:
        if self.new_era:
            return obj.resolved_dict()
        return self.snapshot(obj)


def _arg_group_modules() -> list[Any]:
    import importlib
    import pkgutil

    try:
        import sglang.srt.arg_groups as groups
    except ImportError:
        return []
    modules = []
    for info in pkgutil.iter_modules(groups.__path__):
        try:
            modules.append(importlib.import_module(f"sglang.srt.arg_groups.{info.name}"))
        except Exception:
            pass
    return modules


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return a is b


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

def run_case(argv: list[str], recorder: Recorder) -> dict[str, Any]:
    sa = recorder.sa
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    env_before = dict(os.environ)
    error = None
    obj = None
    started = time.monotonic()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # prepare_server_args: the release's own parser (and, up to 0.5.18,
            # __post_init__ resolution inside from_cli_args).
            obj = sa.prepare_server_args(list(argv))
            # Keep our capture handler: prepare_server_args calls basicConfig(force=True).
            if capture not in logging.getLogger().handlers:
                logging.getLogger().addHandler(capture)
            logging.getLogger().setLevel(logging.DEBUG)
            if recorder.new_era:
                recorder.instance = obj
                recorder.parsed = recorder.snapshot(obj)
                obj.resolve_once()
        except BaseException as exc:  # a rejection (or argparse's SystemExit)
            error = {"type": type(exc).__name__, "message": _scrub(str(exc))}
            error.update(_raise_details(exc))
    elapsed = time.monotonic() - started
    logging.getLogger().removeHandler(capture)

    target = obj if obj is not None else recorder.instance
    parsed = recorder.parsed or {}
    resolved: dict[str, Any] = {}
    if target is not None:
        try:
            resolved = recorder.resolved(target)
        except Exception as exc:  # new era after a failed resolution
            resolved = recorder.snapshot(target)
            if recorder.new_era:
                from sglang.srt.arg_groups.overrides import resolution_result

                resolved = {}
                for name in recorder.field_names():
                    try:
                        resolved[name] = resolution_result(target, name)
                    except Exception:
                        resolved[name] = getattr(target, name, None)
            del exc
    changed = {}
    for name, after in resolved.items():
        before = parsed.get(name)
        if name in parsed and not _same(before, after):
            changed[name] = [json_safe(before), json_safe(after)]
    if recorder.new_era and target is not None:
        recorder.new_era_steps(target, {f: resolved.get(f) for f in changed})
    warn, info = [], []
    for record in capture.records:
        if record.levelno < logging.INFO:
            continue
        if not (record.pathname and "/sglang/" in record.pathname):
            if record.levelno < logging.WARNING:
                continue
        (warn if record.levelno >= logging.WARNING else info).append(_record_json(record))
    for w in caught:
        warn.append({"location": f"{_rel(w.filename)}:{w.lineno}", "level": "PYWARNING",
                     "logger": w.category.__name__, "message": _scrub(str(w.message))})
    env_set = {k: _scrub(v) for k, v in os.environ.items() if env_before.get(k) != v}
    steps = [
        {k: (json_safe(v) if k in ("before", "after") else v) for k, v in s.items()}
        for s in recorder.steps
    ]
    return {
        "parsed": {k: json_safe(v) for k, v in parsed.items()},
        "resolved": {k: json_safe(v) for k, v in resolved.items()},
        "changed": changed,
        "changed_by": steps,
        "error": error,
        "warnings": warn,
        "info": info,
        "env_set": env_set,
        "seconds": round(elapsed, 3),
    }


def setup(sglang_root: str, gpu: dict | None, env: dict[str, str]) -> Recorder:
    global SGLANG_ROOT
    SGLANG_ROOT = Path(sglang_root).resolve()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.update({k: str(v) for k, v in env.items()})
    gt_env.install_import_stubs()
    gt_env.simulate_gpu(gpu)
    sys.path.insert(0, str(SGLANG_ROOT))
    import sglang

    if not str(Path(sglang.__file__).resolve()).startswith(str(SGLANG_ROOT)):
        raise SystemExit(f"imported sglang from {sglang.__file__}, not {SGLANG_ROOT}")
    from sglang.srt import server_args as sa

    _preimport()
    recorder = Recorder(sa)
    if recorder.new_era:
        recorder.install_new()
    else:
        recorder.install_old()
    return recorder


# Modules that resolution imports lazily. Imported once up front so that their
# import-time side effects (environment variables such as DG_JIT_CACHE_DIR) are
# not mistaken for resolution's own, and so every forked case starts equal.
PREIMPORT = (
    "sglang.srt.configs.model_config",
    "sglang.srt.server_args_config_parser",
    "sglang.srt.utils.server_args_config_parser",
    "sglang.srt.arg_groups.pipeline",
    "sglang.srt.speculative.spec_info",
    "sglang.srt.layers.attention.attention_registry",
    "sglang.srt.sampling.watermarking.core",
)


def _preimport() -> None:
    import importlib
    import pkgutil

    names = list(PREIMPORT)
    try:
        import sglang.srt.arg_groups as groups

        names += [f"sglang.srt.arg_groups.{m.name}" for m in pkgutil.iter_modules(groups.__path__)
                  if m.name.endswith("_hook")]
    except ImportError:
        pass
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            pass


def parsed_defaults(recorder: Recorder, model_path: str) -> dict[str, Any]:
    """Field values right after parsing ``--model-path X`` alone (before resolution).

    Per-case ``parsed`` stores only the fields whose value differs from these.
    """
    sa = recorder.sa
    parser = argparse.ArgumentParser()
    sa.ServerArgs.add_cli_args(parser)
    ns = parser.parse_args(["--model-path", model_path])
    values = {}
    for name in recorder.field_names():
        if hasattr(ns, name):
            values[name] = getattr(ns, name)
        else:  # no CLI flag: the field's declared default
            values[name] = _field_default(recorder, name)
    return {k: json_safe(v) for k, v in values.items()}


def _field_default(recorder: Recorder, name: str) -> Any:
    if recorder.new_era:
        try:
            import msgspec

            for f in msgspec.structs.fields(recorder.ServerArgs):
                if f.name == name:
                    if f.default is not msgspec.NODEFAULT:
                        return f.default
                    if f.default_factory is not msgspec.NODEFAULT:
                        return f.default_factory()
                    return None
        except Exception:
            pass
    for f in dataclasses.fields(recorder.ServerArgs) if dataclasses.is_dataclass(recorder.ServerArgs) else ():
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                return f.default_factory()  # type: ignore[misc]
    return None


def _fresh(recorder: Recorder) -> None:
    recorder.parsed = None
    recorder.steps = []
    recorder.attributed = set()
    recorder.hook_of_index = {}
    recorder.instance = None


def batch(recorder: Recorder, cases_path: str, out_path: str, timeout: float) -> None:
    cases = [json.loads(line) for line in Path(cases_path).read_text().splitlines() if line.strip()]
    tmp_dir = Path(out_path + ".parts")
    tmp_dir.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w") as out:
        header: dict[str, Any] = {
            "header": True,
            "stubs": list(gt_env.STUB_LOG),
            "stubbed_modules_imported": gt_env.stubbed_modules(),
            "era": "resolve_once/run_resolution_pipeline" if recorder.new_era
            else "__post_init__/_handle_*",
        }
        if cases:
            model = next((a for c in cases for i, a in enumerate(c["argv"][1:])
                          if c["argv"][i] == "--model-path"), None)
            try:
                header["parsed_defaults"] = parsed_defaults(recorder, model or "none")
                header["parsed_defaults"].pop("model_path", None)
            except BaseException as exc:
                header["parsed_defaults_error"] = repr(exc)
        out.write(json.dumps(header) + "\n")
        for n, case in enumerate(cases):
            part = tmp_dir / f"{n}.json"
            pid = os.fork()
            if pid == 0:  # child
                try:
                    _fresh(recorder)
                    if case.get("count"):
                        gt_env.set_gpu_count(case["count"])
                    sys.stdout = io.StringIO()
                    result = run_case(case["argv"], recorder)
                    part.write_text(json.dumps(result))
                    os._exit(0)
                except BaseException:
                    part.write_text(json.dumps({"harness_error": traceback.format_exc()[-4000:]}))
                    os._exit(1)
            deadline = time.monotonic() + timeout
            status = None
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    status = "timeout"
                    break
                time.sleep(0.02)
            if status == "timeout":
                result = {"harness_error": f"timeout after {timeout}s"}
            elif part.exists():
                result = json.loads(part.read_text())
                part.unlink()
            else:
                result = {"harness_error": f"child exited with status {status} and no result"}
            result["id"] = case["id"]
            out.write(json.dumps(result) + "\n")
            out.flush()
    try:
        tmp_dir.rmdir()
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sglang-root", required=True)
    ap.add_argument("--gpu", default=None, help="GPU profile JSON (omit: no GPU)")
    ap.add_argument("--env", default="{}", help="environment JSON object")
    ap.add_argument("--batch", help="JSON-lines file of {id, argv}")
    ap.add_argument("--out", help="batch output (JSON lines)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("argv", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    gpu = json.loads(args.gpu) if args.gpu else None
    env = json.loads(args.env)
    recorder = setup(args.sglang_root, gpu, env)
    if args.batch:
        batch(recorder, args.batch, args.out, args.timeout)
        return 0
    case_argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    result = run_case(case_argv, recorder)
    result["stubs"] = list(gt_env.STUB_LOG)
    result["stubbed_modules_imported"] = gt_env.stubbed_modules()
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
