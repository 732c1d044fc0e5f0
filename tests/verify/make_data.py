"""Regenerate tests/data/verify/: what a real SGLang server reports about its resolved arguments.

Runs INSIDE the ground-truth virtualenv (tests/differential/README.md), one release per
process, from the repository root::

    tests/verify/make_data.sh            # every release unpacked under $GT_WORK/src
    PYTHONPATH=$GT_WORK/deps/0.5.10:$GT_WORK/pb $GT_WORK/venv/bin/python \
        tests/verify/make_data.py --sglang-root $GT_WORK/src/0.5.10 --gpu h200

For each case it runs the release's REAL `prepare_server_args` (+ `resolve_once` from
0.5.20) on a simulated GPU (tests/differential/gt_env.py) and serialises the resulting
ServerArgs exactly as that release's own code does:

* `server_info.json`: the body of `GET /server_info` (`GET /get_server_info` up to 0.5.5),
  built like `http_server.server_info()` of the release: `dataclasses.asdict(server_args)`
  (up to 0.5.18) or `resolved_dict()` + `launch_command` (0.5.20+, through the release's
  `msgspec_to_builtins` / `build_server_info` / `redact_watermark_secrets`), then
  `scheduler_info`, `internal_states` and `version`, JSON-encoded by FastAPI's
  `jsonable_encoder`. `scheduler_info` and the per-rank runtime figures inside
  `internal_states` (memory use, throughput, token capacity) only exist once a scheduler
  has loaded weights; they are filled with the placeholders in RUNTIME_PLACEHOLDERS.
* `grpc_server_info.json` (0.5.5, the release with the in-tree gRPC server): the
  `GetServerInfoResponse` that `grpc_server.GetServerInfo` builds (server_args and
  scheduler_info as protobuf Structs), as `json_format.MessageToDict` gives it.
* `model_info.json`: the body of `GET /model_info` (architectures, model_type ...).
* `serve.log`: what `sglang serve` writes: the resolution's own warnings (logged before
  logging is configured, so Python's last-resort handler prints the bare message), then
  the `server_args=...` line through the release's `configure_logger` and the exact
  f-string its engine.py uses. `serve-rank.log`: the same with `SGLANG_LOG_MS=1` and a
  per-rank prefix (`configure_logger(server_args, prefix=" DP0 TP0")`, as schedulers do).
* `case.json`: the argv, the simulated GPU, what was stubbed, and the warnings with
  their `sglang/...:line` locations (what the log cannot show).

Model paths are relative to the repository root (tests/data/groundtruth/models/...).
protobuf (for MessageToDict) is not a ground-truth dependency: install it with
`pip install --target $GT_WORK/pb protobuf==6.31.1` and put it on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import logging
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "differential"))

import gt_env  # noqa: E402

MODELS = "tests/data/groundtruth/models"
GPUS = {
    "h200": {"vendor": "nvidia", "capability": [9, 0], "name": "NVIDIA H200", "memory_mib": 143771,
             "count": 1, "cuda": "12.9"},
    "rtx-pro-6000": {"vendor": "nvidia", "capability": [12, 0],
                     "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memory_mib": 97887,
                     "count": 4, "cuda": "12.9"},
}
# case id -> (gpu, model, argv after --model-path, flags that must exist in the release).
# Options the release does not have are dropped with their value (see _known).
CASES = {
    "h200-mtp": ("h200", "qwen3.5-122b-a10b",
                 ["--tp-size", "1", "--speculative-algorithm", "NEXTN",
                  "--mamba-scheduler-strategy", "extra_buffer"], []),
    "sm120-motivating": ("rtx-pro-6000", "qwen3.5-122b-a10b",
                         ["--tp-size", "4", "--speculative-algorithm", "NEXTN",
                          "--mamba-scheduler-strategy", "extra_buffer",
                          "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion"],
                         ["--enable-fused-moe-sum-all-reduce"]),
    "h200-llama": ("h200", "llama-3-8b", ["--tp-size", "1", "--random-seed", "7"], []),
}
RELEASE_CASES = {
    "0.5.5": ["h200-llama"],
    "0.5.10": ["h200-mtp", "sm120-motivating"],
    "0.5.14": ["h200-mtp"],
    "0.5.20": ["sm120-motivating"],
    "0.5.23": ["sm120-motivating"],
}
RUNTIME_PLACEHOLDERS = {
    "scheduler_info": {"status": "ready", "max_total_num_tokens": 1000000, "max_req_input_len": 262139},
    "last_gen_throughput": 0.0,
    "memory_usage": {"weight": 60.0, "kvcache": 60.0, "token_capacity": 1000000, "graph": 1.5},
}
TIMESTAMP = "2026-01-15 09:30:00"


class _Recorder:
    """Where each WARNING+ record came from, whichever handler prints it: before 0.5.14 the
    resolution logs before logging is configured (Python's last-resort handler prints the bare
    message); from 0.5.14 prepare_server_args calls basicConfig first (`[time] message`)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self._original = logging.Logger.callHandlers

    def __enter__(self) -> _Recorder:
        recorder, original = self, self._original

        def call_handlers(logger: logging.Logger, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                path = record.pathname
                rel = path[path.rindex("/sglang/") + 1:] if "/sglang/" in path else path
                recorder.records.append({"location": f"{rel}:{record.lineno}", "level": record.levelname,
                                         "message": record.getMessage()})
            original(logger, record)

        logging.Logger.callHandlers = call_handlers  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        logging.Logger.callHandlers = self._original  # type: ignore[method-assign]


def _resolve(argv: list[str]) -> tuple[Any, str, list[dict[str, Any]]]:
    """The release's own parsing + resolution; what it printed (stdout and stderr, as a service
    log interleaves them) and where its warnings came from."""
    from sglang.srt import server_args as sa

    out = io.StringIO()
    for h in list(logging.getLogger().handlers):
        logging.getLogger().removeHandler(h)
    with _Recorder() as recorder, redirect_stdout(out), redirect_stderr(out):
        obj = sa.prepare_server_args(list(argv))
        if hasattr(obj, "resolve_once"):
            obj.resolve_once()
    return obj, out.getvalue(), recorder.records


def _known() -> set[str]:
    from sglang.srt import server_args as sa

    parser = argparse.ArgumentParser()
    sa.ServerArgs.add_cli_args(parser)
    return set(parser._option_string_actions)


def _only_known(argv: list[str], known: set[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        takes_value = i + 1 < len(argv) and not argv[i + 1].startswith("--")
        if argv[i] in known:
            out += argv[i:i + 2] if takes_value else argv[i:i + 1]
        i += 2 if takes_value else 1
    return out


def _server_args_line(server_args: Any, release_root: Path) -> str:
    """The f-string the release's engine.py logs (read from its source, not assumed)."""
    engine = (release_root / "sglang" / "srt" / "entrypoints" / "engine.py").read_text()
    if 'f"{server_args=}"' in engine:
        return f"{server_args=}"
    if "_server_args_for_logging(server_args)" in engine:
        from sglang.srt.sampling.watermarking.core import redact_watermark_secrets

        return f"server_args={redact_watermark_secrets(server_args.resolved_dict())}"
    if "server_args={server_args.resolved_dict()}" in engine:
        return f"server_args={server_args.resolved_dict()}"
    raise SystemExit("cannot find how engine.py logs server_args")


def _log(server_args: Any, release_root: Path, prefix: str, ms: bool) -> str:
    """One `server_args=` record through the release's own configure_logger."""
    from sglang.srt.utils.common import configure_logger

    if ms:
        os.environ["SGLANG_LOG_MS"] = "1"
    try:
        configure_logger(server_args, prefix=prefix)
    finally:
        os.environ.pop("SGLANG_LOG_MS", None)
    stream = io.StringIO()
    root = logging.getLogger()
    handler = root.handlers[0]
    handler.setStream(stream)  # type: ignore[attr-defined]
    logger = logging.getLogger("sglang.srt.entrypoints.engine")
    record = logger.makeRecord(logger.name, logging.INFO, "engine.py", 0,
                               _server_args_line(server_args, release_root), (), None)
    record.created = _fixed_time()
    record.msecs = 123.0
    logger.handle(record)
    for h in list(root.handlers):
        root.removeHandler(h)
    return stream.getvalue()


def _fixed_time() -> float:
    import time

    return time.mktime(time.strptime(TIMESTAMP, "%Y-%m-%d %H:%M:%S"))


def _jsonable(value: Any) -> Any:
    from fastapi.encoders import jsonable_encoder

    return jsonable_encoder(value)


def server_info(server_args: Any, version: str, release_root: Path) -> tuple[dict[str, Any], list[str]]:
    http = (release_root / "sglang" / "srt" / "entrypoints" / "http_server.py").read_text()
    endpoints = [e for e in ("/server_info", "/get_server_info") if f'@app.get("{e}")' in http]
    scheduler_info = RUNTIME_PLACEHOLDERS["scheduler_info"]
    if hasattr(server_args, "resolved_dict"):
        from sglang.srt.utils.msgspec_utils import msgspec_to_builtins

        if "build_server_info(" in http:
            from sglang.srt.sampling.watermarking.core import redact_watermark_secrets

            top = {**server_args.resolved_dict(), "launch_command": server_args.launch_command,
                   **scheduler_info, "kv_events": None}
            top = redact_watermark_secrets(top)
        else:
            top = {**server_args.resolved_dict(), "launch_command": server_args.launch_command,
                   **scheduler_info}
        state = dict(server_args.resolved_dict())
        body = {**top, "startup_time": 1.0, "internal_states": [_rank_state(state, server_args)],
                "version": version}
        if "kv_events" in http and "kv_events" not in body:
            body["kv_events"] = None
        return _jsonable(msgspec_to_builtins(body)), endpoints
    fields = dataclasses.asdict(server_args)
    fields.pop("model_config", None)
    state = {k: v for k, v in vars(server_args).items() if k != "model_config"}
    body = {**fields, **scheduler_info, "internal_states": [_rank_state(state, server_args)], "version": version}
    return _jsonable(body), endpoints


def _rank_state(state: dict[str, Any], server_args: Any) -> dict[str, Any]:
    """One `internal_states[i]`: the scheduler's view of the server args plus runtime figures."""
    out = dict(state)
    out["last_gen_throughput"] = RUNTIME_PLACEHOLDERS["last_gen_throughput"]
    out["memory_usage"] = dict(RUNTIME_PLACEHOLDERS["memory_usage"])
    out["effective_max_running_requests_per_dp"] = getattr(server_args, "max_running_requests", None)
    return out


def grpc_server_info(server_args: Any, version: str) -> dict[str, Any] | None:
    """0.5.5's GetServerInfoResponse, built as grpc_server.GetServerInfo does, as MessageToDict gives it."""
    try:
        from google.protobuf import json_format
        from google.protobuf.struct_pb2 import Struct
        from google.protobuf.timestamp_pb2 import Timestamp
        from sglang.srt.grpc import sglang_scheduler_pb2 as pb
    except ImportError:
        return None

    def make_serializable(obj: Any) -> Any:  # grpc_server.GetServerInfo's own helper, verbatim
        if obj is None:
            return None
        elif isinstance(obj, (str, int, float, bool)):
            return obj
        elif isinstance(obj, (list, tuple, set)):
            return [make_serializable(item) for item in obj]
        elif isinstance(obj, dict):
            return {k: make_serializable(v) for k, v in obj.items()}
        else:
            return str(obj)

    args_struct = Struct()
    args_struct.update(make_serializable(dataclasses.asdict(server_args)))
    info_struct = Struct()
    info_struct.update(RUNTIME_PLACEHOLDERS["scheduler_info"])
    start = Timestamp()
    start.FromSeconds(int(_fixed_time()))
    response = pb.GetServerInfoResponse(
        server_args=args_struct, scheduler_info=info_struct, active_requests=0, is_paused=False,
        last_receive_timestamp=0.0, uptime_seconds=12.5, sglang_version=version, server_type="grpc",
        start_time=start)
    return json_format.MessageToDict(response, preserving_proto_field_name=True)


def model_info(server_args: Any, model_dir: Path) -> dict[str, Any]:
    config = json.loads((model_dir / "config.json").read_text())
    return {"model_path": server_args.model_path, "tokenizer_path": server_args.tokenizer_path,
            "is_generation": True, "preferred_sampling_params": None, "weight_version": "default",
            "model_type": config.get("model_type"), "architectures": config.get("architectures")}


def run(release_root: Path, out_root: Path, gpu_key: str) -> None:
    import sglang

    version = sglang.__version__
    for case_id in RELEASE_CASES.get(version, []):
        case_gpu, model, extra, _needs = CASES[case_id]
        if case_gpu != gpu_key:
            continue
        gpu = GPUS[gpu_key]
        gt_env.set_gpu_count(gpu["count"])
        known = _known()
        if any(n not in known for n in _needs):
            continue
        argv = ["--model-path", f"{MODELS}/{model}"] + _only_known(extra, known)
        obj, resolution_output, warnings = _resolve(argv)
        target = out_root / version / case_id
        target.mkdir(parents=True, exist_ok=True)
        body, endpoints = server_info(obj, version, release_root)
        (target / "server_info.json").write_text(json.dumps(body, indent=1, sort_keys=False) + "\n")
        in_tree_grpc = (release_root / "sglang" / "srt" / "grpc" / "sglang_scheduler_pb2.py").exists()
        grpc = grpc_server_info(obj, version) if in_tree_grpc else None
        if grpc is not None:
            (target / "grpc_server_info.json").write_text(json.dumps(grpc, indent=1) + "\n")
        (target / "model_info.json").write_text(json.dumps(model_info(obj, ROOT / MODELS / model), indent=1) + "\n")
        plain = _log(obj, release_root, "", ms=False)
        ranked = _log(obj, release_root, " DP0 TP0", ms=True)
        (target / "serve.log").write_text(resolution_output + plain)
        (target / "serve-rank.log").write_text(resolution_output + ranked)
        (target / "case.json").write_text(json.dumps({
            "sglang": version, "argv": argv, "gpu": gpu, "endpoints": endpoints,
            "warnings": warnings, "stubbed_modules_imported": gt_env.stubbed_modules(),
            "runtime_placeholders": RUNTIME_PLACEHOLDERS,
        }, indent=1) + "\n")
        print(f"{version} {case_id}: {len(body)} keys, {len(warnings)} warnings, endpoints {endpoints}")


def _tolerate_missing_kernel_ops() -> None:
    """0.5.5 registers fake kernels for `sgl_kernel::` ops at import time; sgl_kernel is a stub
    here, so the op does not exist and torch raises. Registration of a kernel is irrelevant to
    argument resolution: skip it for ops that do not exist."""
    import torch.library

    original = torch.library.register_fake

    def guarded(call):  # type: ignore[no-untyped-def]
        try:
            return call()
        except RuntimeError as exc:
            if "does not exist" not in str(exc):
                raise
            return None

    def register_fake(op, func=None, /, **kwargs):  # type: ignore[no-untyped-def]
        if func is not None:
            return guarded(lambda: original(op, func, **kwargs))
        decorator = original(op, **kwargs)

        def apply(fn):  # type: ignore[no-untyped-def]
            guarded(lambda: decorator(fn))
            return fn

        return apply

    torch.library.register_fake = register_fake


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sglang-root", required=True, type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "verify")
    ap.add_argument("--gpu", choices=sorted(GPUS), required=True,
                    help="one simulated GPU per process: SGLang reads the hardware at import time")
    args = ap.parse_args()
    os.chdir(ROOT)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    gt_env.install_import_stubs()
    _tolerate_missing_kernel_ops()
    gt_env.simulate_gpu(GPUS[args.gpu])
    sys.path.insert(0, str(args.sglang_root.resolve()))
    run(args.sglang_root.resolve(), args.out, args.gpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
