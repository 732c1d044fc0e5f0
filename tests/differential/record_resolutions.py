"""Record SGLang's own argument resolution over a matrix of configurations.

    python record_resolutions.py --version 0.5.10 --sglang-root /tmp/fs-gt/src/0.5.10 \
        --deps /tmp/fs-gt/deps/0.5.10 --python /tmp/fs-gt/venv/bin/python \
        --out tests/data/groundtruth/resolution/0.5.10.json

Builds the case matrix (GPUs x counts x models x flag sets), keeps the flag
sets whose options the release has (per-release spellings are tried in order),
groups the cases by (GPU, environment), and runs each group in one
``resolve_one.py --batch`` process (SGLang imported once with that simulated
GPU and environment, one forked child per case, per-case timeout). Two groups
run at a time (the machine has 2 cores). The output is
``tests/data/groundtruth/resolution/<version>.json``; see README.md for the
format.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "groundtruth"
MODELS = DATA / "models"

# The simulated GPUs are entries of flagscan's GPU table (rules/gpus.toml), by
# name: vendor, name (torch.cuda.get_device_name / nvidia-smi), capability and
# memory (nvidia-smi's MiB) come from the table, torch.version.cuda/hip from its
# [defaults]; so the table itself is tested against what SGLang saw
# (test_groundtruth_files.py checks every recorded profile against it).
GPU_TABLE = HERE.parent.parent / "rules" / "gpus.toml"
GPU_KEYS = ("a100-80gb", "h200", "b200", "rtx-pro-6000-server", "mi300x")
# What the table does not hold and the simulation answers as well: the SM count
# (get_device_properties().multi_processor_count) and ROCm's full gcnArchName.
GPU_EXTRAS: dict[str, dict[str, Any]] = {
    "a100-80gb": {"sm_count": 108},
    "h200": {"sm_count": 132},
    "b200": {"sm_count": 148},
    "rtx-pro-6000-server": {"sm_count": 188},
    "mi300x": {"sm_count": 304, "gcn_arch": "gfx942:sramecc+:xnack-"},
}


def gpu_profiles(path: Path = GPU_TABLE) -> dict[str, dict[str, Any]]:
    """The simulated profile of every GPU in GPU_KEYS, read from the GPU table."""
    import tomllib

    table = tomllib.loads(path.read_text())
    defaults = table["defaults"]
    out: dict[str, dict[str, Any]] = {}
    for key in GPU_KEYS:
        entry = table["gpu"][key]
        profile: dict[str, Any] = {"vendor": entry["vendor"], "capability": list(entry["capability"]),
                                   "name": entry["name"], "memory_mib": entry["memory_mib"]}
        if entry["vendor"] == "amd":
            profile.update(hip=defaults["hip"], arch=entry["arch"])
        else:
            profile["cuda"] = defaults["cuda"]
        profile.update(GPU_EXTRAS[key])
        out[key] = profile
    return out


GPUS: dict[str, dict[str, Any]] = gpu_profiles()
MOTIVATING_GPU = "rtx-pro-6000-server"

# model -> (directory under tests/data/groundtruth/models, GPU counts to use)
MODEL_COUNTS: dict[str, list[int]] = {
    "llama-3-8b": [1, 2],
    "qwen3-30b-a3b": [1, 2, 4],
    "qwen3.5-122b-a10b": [4, 8],
    "deepseek-v3": [8],
    "qwen3-next-80b-a3b": [2, 4],
}

# Flag sets. Each is a list of alternative spellings; the first whose options
# all exist in the release's inventory is used ("{N}" = the GPU count,
# "{M:name}" = a model directory). Sets marked core run on every GPU.
FLAGSETS: dict[str, dict[str, Any]] = {
    "baseline": {"core": True, "alts": [[]]},
    "spec-eagle": {"core": True, "alts": [[
        "--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "{M:llama-3-8b}",
        "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4"]]},
    "spec-nextn": {"core": True, "alts": [["--speculative-algorithm", "NEXTN"]]},
    "spec-standalone": {"alts": [[
        "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", "{M:llama-3-8b}"]]},
    "dp-attention": {"core": True, "alts": [["--enable-dp-attention", "--dp", "{N}"]]},
    "torch-compile": {"core": True, "alts": [["--enable-torch-compile"]]},
    "lora": {"alts": [["--enable-lora", "--max-lora-rank", "16", "--lora-target-modules", "all"]]},
    "deterministic": {"core": True, "alts": [["--enable-deterministic-inference"]]},
    "attn-triton": {"core": True, "alts": [["--attention-backend", "triton"]]},
    "attn-fa3": {"alts": [["--attention-backend", "fa3"]]},
    "attn-flashinfer": {"alts": [["--attention-backend", "flashinfer"]]},
    "attn-trtllm-mha": {"alts": [["--attention-backend", "trtllm_mha"]]},
    "attn-trtllm-mla": {"alts": [["--attention-backend", "trtllm_mla"]]},
    "moe-flashinfer-cutlass": {"alts": [["--moe-runner-backend", "flashinfer_cutlass"]]},
    "moe-triton": {"alts": [["--moe-runner-backend", "triton"]]},
    "moe-deepep": {"alts": [["--moe-a2a-backend", "deepep", "--ep-size", "{N}"]]},
    "fp8": {"core": True, "alts": [["--quantization", "fp8"]]},
    "kv-fp8": {"alts": [["--kv-cache-dtype", "fp8_e4m3"]]},
    "hicache": {"core": True, "alts": [["--enable-hierarchical-cache"]]},
    "pd-prefill": {"alts": [["--disaggregation-mode", "prefill"]]},
    "pd-decode": {"alts": [["--disaggregation-mode", "decode"]]},
    "ar-fusion": {"core": True, "alts": [["--enable-flashinfer-allreduce-fusion"]]},
    "fused-moe-sum-ar": {"alts": [["--enable-fused-moe-sum-all-reduce"]]},
    "chunked-4096": {"alts": [["--chunked-prefill-size", "4096"]]},
    "chunked-off": {"alts": [["--chunked-prefill-size", "-1"]]},
    "memory": {"core": True, "alts": [["--mem-fraction-static", "0.8", "--max-running-requests", "64"]]},
    "mamba-extra-buffer": {"alts": [["--mamba-scheduler-strategy", "extra_buffer"],
                                    ["--mamba-radix-cache-strategy", "extra_buffer"]]},
    "no-radix": {"alts": [["--disable-radix-cache"]]},
    "no-cuda-graph": {"alts": [["--disable-cuda-graph"]]},
    "page-64": {"alts": [["--page-size", "64"]]},
    "pp-2": {"alts": [["--pp-size", "2"]]},
    # Deprecated spellings SGLang translates (kept where the release has the
    # options; in a release where an option is not deprecated yet it is an
    # ordinary one). "tp" names the option that carries the GPU count ("--tp",
    # argparse's unique abbreviation of --tp-size, as operators write it);
    # "pinned" sets are recorded only in the cases build_matrix names.
    "dp-attention-tp": {"pinned": True, "tp": "--tp", "alts": [["--dp", "{N}", "--enable-dp-attention"]]},
    "dep-cuda-graph-max-bs": {"alts": [["--cuda-graph-max-bs", "32"]]},
    "dep-disable-piecewise": {"alts": [["--disable-piecewise-cuda-graph"]]},
    "dep-stream-output": {"alts": [["--stream-output"]]},
    "dep-fast-image-processor": {"alts": [["--disable-fast-image-processor"]]},
    "motivating": {"core": True, "alts": [[
        "--speculative-algorithm", "NEXTN", "--attention-backend", "triton",
        "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion"]]},
    "motivating-extra-buffer": {"alts": [
        ["--speculative-algorithm", "NEXTN", "--attention-backend", "triton",
         "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion",
         "--mamba-scheduler-strategy", "extra_buffer"],
        ["--speculative-algorithm", "NEXTN", "--attention-backend", "triton",
         "--enable-fused-moe-sum-all-reduce", "--enable-flashinfer-allreduce-fusion",
         "--mamba-radix-cache-strategy", "extra_buffer"]]},
}

# Environment variants: (name, env). Each runs in its own group of processes.
ENV_CASES: list[tuple[str, dict[str, str], list[str]]] = [
    # The motivating command with SGLang's spec-v2 switch on, on its own hardware.
    ("spec-v2", {"SGLANG_ENABLE_SPEC_V2": "1"}, ["motivating", "motivating-extra-buffer",
                                                 "spec-nextn", "spec-eagle", "mamba-extra-buffer"]),
]


# Fields whose resolved value is random per run (recorded as "<random>").
VOLATILE_FIELDS = ("random_seed",)


def _stable_pick(key: str, options: list[Any]) -> Any:
    h = int(hashlib.sha256(key.encode()).hexdigest(), 16)
    return options[h % len(options)]


def inventory_options(version: str) -> set[str] | None:
    path = DATA / "inventory" / f"{version}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return {o for a in data["actions"] for o in a["options"]}


def accepts(option: str, options: set[str]) -> bool:
    """The release's parser takes `option`: one of its option strings, or (argparse's
    allow_abbrev, on in every recorded release) the prefix of exactly one."""
    return option in options or sum(1 for o in options if o.startswith(option)) == 1


def choose_flags(name: str, options: set[str] | None) -> list[str] | None:
    spec = FLAGSETS[name]
    for alt in spec["alts"]:
        opts = [a for a in alt if a.startswith("--")] + [spec.get("tp", "--tp-size")]
        if options is None or all(accepts(o, options) for o in opts):
            return alt
    return None


def expand(argv: list[str], count: int) -> list[str]:
    out = []
    for a in argv:
        a = a.replace("{N}", str(count))
        if a.startswith("{M:") and a.endswith("}"):
            a = str(MODELS / a[3:-1])
        out.append(a)
    return out


def build_matrix(version: str, limit: int | None = None) -> list[dict[str, Any]]:
    options = inventory_options(version)
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(model: str, gpu: str, count: int, flagset: str, env_name: str = "",
            env: dict[str, str] | None = None) -> None:
        flags = choose_flags(flagset, options)
        if flags is None:
            return
        case_id = f"{model}|{gpu}x{count}|{flagset}" + (f"|env:{env_name}" if env_name else "")
        if case_id in seen:
            return
        seen.add(case_id)
        tp = FLAGSETS[flagset].get("tp", "--tp-size")
        argv = ["--model-path", str(MODELS / model), tp, str(count)] + expand(flags, count)
        cases.append({"id": case_id, "model": model, "gpu": gpu, "count": count,
                      "flagset": flagset, "env_name": env_name, "env": env or {},
                      "argv": argv})

    for model, counts in MODEL_COUNTS.items():
        for flagset, spec in FLAGSETS.items():
            if spec.get("pinned"):
                continue
            if spec.get("core"):
                # every GPU, at the model's first count; and one more count, rotating
                for gpu in GPUS:
                    add(model, gpu, counts[0], flagset)
                if len(counts) > 1:
                    # a second count on two rotating GPUs
                    gpus = list(GPUS)
                    first = _stable_pick(f"{model}{flagset}c", gpus)
                    second = _stable_pick(f"{model}{flagset}d", [g for g in gpus if g != first])
                    for gpu in (first, second):
                        add(model, gpu, _stable_pick(f"{model}{gpu}{flagset}", counts[1:]), flagset)
            else:
                # two GPUs, rotating, at a rotating count; the motivating GPU always
                gpus = list(GPUS)
                first = _stable_pick(f"{model}{flagset}a", gpus)
                second = _stable_pick(f"{model}{flagset}b", [g for g in gpus if g != first])
                for gpu in (first, second):
                    add(model, gpu, _stable_pick(f"{model}{gpu}{flagset}", counts), flagset)
    # GPU counts 1/2/4/8 for the baseline on every GPU and model
    for model in MODEL_COUNTS:
        for gpu in GPUS:
            for count in (1, 2, 4, 8):
                add(model, gpu, count, "baseline")
    # The motivating incident, exactly: 4x RTX PRO 6000 (SM120), Qwen3.5-122B-A10B.
    for flagset in ("motivating", "motivating-extra-buffer", "ar-fusion", "fused-moe-sum-ar",
                    "spec-nextn", "mamba-extra-buffer", "attn-triton", "baseline"):
        add("qwen3.5-122b-a10b", MOTIVATING_GPU, 4, flagset)
    # `--tp 8 --dp 8 --enable-dp-attention` (deprecated from 0.5.23, where
    # SGLang moves the DP size to attn_dp_size) for every model on every GPU.
    for model in MODEL_COUNTS:
        for gpu in GPUS:
            add(model, gpu, 8, "dp-attention-tp")
    for env_name, env, flagsets in ENV_CASES:
        for flagset in flagsets:
            for model in ("qwen3.5-122b-a10b", "qwen3-next-80b-a3b"):
                add(model, MOTIVATING_GPU, 4, flagset, env_name, env)
                add(model, "h200", 4, flagset, env_name, env)
    if limit:
        cases = cases[:limit]
    return cases


# A subset (--subset N) keeps every case of these flag sets, and the ones below.
SUBSET_FLAGSETS = ("dp-attention-tp", "dep-cuda-graph-max-bs", "dep-disable-piecewise", "dep-stream-output",
                   "dep-fast-image-processor", "motivating", "motivating-extra-buffer")
SUBSET_RULE = ("a deterministic subset: a case is kept when int(sha256(case id), 16) % every == 0, or its "
               "flag set is one of 'flagsets' (the deprecated spellings and the motivating command), or it "
               "is the motivating hardware (Qwen3.5-122B-A10B on 4x RTX PRO 6000 Server Edition, no "
               "environment variant), or it is Llama-3-8B's one-GPU baseline")


def subset(cases: list[dict[str, Any]], every: int) -> list[dict[str, Any]]:
    """The cases SUBSET_RULE keeps, in matrix order."""
    def keep(case: dict[str, Any]) -> bool:
        return (int(hashlib.sha256(case["id"].encode()).hexdigest(), 16) % every == 0
                or case["flagset"] in SUBSET_FLAGSETS
                or (case["model"] == "qwen3.5-122b-a10b" and case["gpu"] == MOTIVATING_GPU
                    and case["count"] == 4 and not case["env_name"])
                or (case["flagset"] == "baseline" and case["count"] == 1 and case["model"] == "llama-3-8b"))
    return [c for c in cases if keep(c)]


def run_groups(cases: list[dict[str, Any]], args: argparse.Namespace, work: Path) -> tuple[list, dict]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for case in cases:
        groups.setdefault((case["gpu"], json.dumps(case["env"], sort_keys=True)), []).append(case)
    pending = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    running: list[tuple[subprocess.Popen, Path, Any]] = []
    outputs: list[Path] = []
    env_base = dict(os.environ)
    env_base["PYTHONPATH"] = args.deps + (os.pathsep + env_base["PYTHONPATH"] if env_base.get("PYTHONPATH") else "")
    env_base.setdefault("PYTHONHASHSEED", "0")
    started = time.monotonic()
    while pending or running:
        while pending and len(running) < args.jobs:
            (gpu, env_json), group = pending.pop(0)
            tag = hashlib.sha256(f"{gpu}{env_json}".encode()).hexdigest()[:10]
            cases_path = work / f"cases-{gpu}-{tag}.jsonl"
            out_path = work / f"out-{gpu}-{tag}.jsonl"
            cases_path.write_text("".join(json.dumps({"id": c["id"], "argv": c["argv"],
                                                      "count": c["count"]}) + "\n" for c in group))
            profile = dict(GPUS[gpu], count=group[0]["count"])
            cmd = [args.python, str(HERE / "resolve_one.py"), "--sglang-root", args.sglang_root,
                   "--gpu", json.dumps(profile), "--env", env_json, "--batch", str(cases_path),
                   "--out", str(out_path), "--timeout", str(args.timeout)]
            log = open(work / f"log-{gpu}-{tag}.txt", "w")
            proc = subprocess.Popen(cmd, env=env_base, stdout=log, stderr=subprocess.STDOUT)
            running.append((proc, out_path, log))
            print(f"[{time.monotonic() - started:6.0f}s] started {gpu} env={env_json} ({len(group)} cases)",
                  flush=True)
        time.sleep(0.5)
        for item in list(running):
            proc, out_path, log = item
            if proc.poll() is not None:
                log.close()
                running.remove(item)
                outputs.append(out_path)
                print(f"[{time.monotonic() - started:6.0f}s] finished {out_path.name} rc={proc.returncode}",
                      flush=True)
    results: list[dict[str, Any]] = []
    header: dict[str, Any] = {}
    for out_path in outputs:
        if not out_path.exists():
            continue
        for line in out_path.read_text().splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec.get("header"):
                # Merge the headers of all groups in an order that does not
                # depend on which group finished first.
                if not header:
                    header = dict(rec, stubs=[], stubbed_modules_imported=[])
                header["stubs"] = sorted(set(header["stubs"]) | set(rec.get("stubs", [])))
                header["stubbed_modules_imported"] = sorted(
                    set(header["stubbed_modules_imported"]) | set(rec.get("stubbed_modules_imported", [])))
                if "parsed_defaults" not in header and "parsed_defaults" in rec:
                    header["parsed_defaults"] = rec["parsed_defaults"]
                continue
            results.append(rec)
    return results, header


class _Interner:
    """Long lists and large dicts (cuda_graph_bs, cuda_graph_config...) repeat
    across cases; they are stored once in the top-level "lists" table and
    referenced as the string "@L<n>"."""

    MIN_LEN = 8
    MIN_CHARS = 120

    def __init__(self) -> None:
        self.table: dict[str, list[Any]] = {}
        self._keys: dict[str, str] = {}

    def value(self, value: Any) -> Any:
        """Intern nested lists/dicts bottom-up: a list of 8+ items, or any list or
        dict whose JSON text is longer than MIN_CHARS, becomes a reference."""
        if isinstance(value, dict):
            value = {k: self.value(v) for k, v in value.items()}
        elif isinstance(value, list):
            value = [self.value(v) for v in value]
        else:
            return value
        key = json.dumps(value, sort_keys=True)
        if (isinstance(value, list) and len(value) >= self.MIN_LEN) or len(key) > self.MIN_CHARS:
            ref = self._keys.get(key)
            if ref is None:
                ref = f"@L{len(self._keys)}"
                self._keys[key] = ref
                self.table[ref] = value
            return ref
        return value

    def fields(self, values: dict[str, Any]) -> dict[str, Any]:
        return {k: self.value(v) for k, v in values.items()}

    def changed(self, changed: dict[str, Any]) -> dict[str, Any]:
        return {k: [self.value(b), self.value(a)] for k, (b, a) in changed.items()}


def _compact_log(record: dict[str, Any]) -> dict[str, Any]:
    record = dict(record)
    loc = record.get("location", "")
    module = loc.rsplit(":", 1)[0].removesuffix(".py").replace("/", ".")
    if record.get("logger") == module:
        del record["logger"]  # the logger is the module at "location"
    return record


class _Steps:
    """Resolution step names, stored once in the top-level "steps" table."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        if name not in self._index:
            self._index[name] = len(self.names)
            self.names.append(name)
        return self._index[name]


def _step_name(s: dict[str, Any]) -> str:
    if "source" in s and s["source"] != s["step"]:
        return f"{s['step']}:{s['source']}"
    return s["step"]


def compact_changes(changed: dict[str, Any], steps: list[dict[str, Any]], intern: _Interner,
                    step_ids: _Steps) -> tuple[dict[str, Any], list[list[Any]]]:
    """changed -> {field: [parsed, resolved, step]} where step indexes the "steps"
    table (the last step that wrote the field; null when no step was seen), and
    the writes that are not a field's final value -> [[step, field, value], ...]."""
    last: dict[str, int] = {}
    for s in steps:
        last[s["field"]] = step_ids(_step_name(s))
    out = {f: [intern.value(b), intern.value(a), last.get(f)] for f, (b, a) in changed.items()}
    writes = []
    for i, s in enumerate(steps):
        final = changed.get(s["field"], [None, None])[1]
        is_last = not any(t["field"] == s["field"] for t in steps[i + 1:])
        if is_last and s["field"] in changed and s.get("after") == final:
            continue
        writes.append([step_ids(_step_name(s)), s["field"], intern.value(s.get("after"))])
    return out, writes


def assemble(version: str, cases: list[dict[str, Any]], results: list[dict[str, Any]],
             header: dict[str, Any]) -> dict[str, Any]:
    by_id = {r["id"]: r for r in results}
    defaults = header.get("parsed_defaults", {})
    intern = _Interner()
    step_ids = _Steps()
    out_cases = []
    for case in cases:
        r = by_id.get(case["id"], {"harness_error": "no result"})
        gpu = {"key": case["gpu"], "count": case["count"]}
        argv = [a.replace(str(MODELS), "<models>") for a in case["argv"]]
        entry: dict[str, Any] = {
            "id": case["id"], "argv": argv, "gpu": gpu, "model": case["model"],
            "flagset": case["flagset"], "env": case["env"],
        }
        if "harness_error" in r:
            entry["harness_error"] = r["harness_error"]
            out_cases.append(entry)
            continue
        parsed = r.get("parsed", {})
        entry["parsed"] = intern.fields({k: v for k, v in parsed.items()
                                         if k not in defaults or defaults[k] != v})
        changed = r.get("changed", {})
        for field in VOLATILE_FIELDS:  # random per run: keep the fact, not the value
            if field in changed and changed[field][1] is not None:
                changed[field] = [changed[field][0], "<random>"]
        steps = [dict(st, after="<random>") if st["field"] in VOLATILE_FIELDS else st
                 for st in r.get("changed_by", [])]
        entry["changed"], writes = compact_changes(changed, steps, intern, step_ids)
        if writes:
            entry["writes"] = writes
        error = r.get("error")
        if error and error.get("trace"):
            error["trace"] = error["trace"][-3:]
        entry["error"] = error
        # Log records and env_set repeat across cases: interned like long values.
        entry["warnings"] = intern.value([_compact_log(x) for x in r.get("warnings", [])])
        entry["info"] = intern.value([_compact_log(x) for x in r.get("info", [])])
        entry["env_set"] = intern.value(r.get("env_set", {}))
        out_cases.append(entry)
    return {
        "sglang": version,
        "era": header.get("era"),
        "resolved_storage": (
            "compact (the full 'resolved' dict per case would not fit the size budget): per case "
            "'parsed' holds only the fields whose parsed value differs from 'parsed_defaults' "
            "(argparse result for '--model-path X' alone, plus declared defaults of fields without "
            "a flag); 'changed' is {field: [parsed, resolved, step]} where step indexes 'steps' "
            "(the last resolution step that wrote the field: a _handle_* method up to 0.5.18, "
            "'hook:declaration-source' from 0.5.20; null if none was seen); 'writes' (only when "
            "present) lists [step, field, value] for writes that are not a field's final value "
            "(intermediate or reverted). The resolved value of a field is changed[field][1] if "
            "present, else parsed[field] if present, else parsed_defaults[field]. A string "
            "'@L<n>' stands for the value lists['@L<n>'] (a long list or a large dict, itself "
            "possibly holding references; 'warnings', 'info' and 'env_set' are interned the same way). "
            "'gpu' is {key, count} with the profile in 'gpus' (an entry of rules/gpus.toml by that "
            "name). A log record without 'logger' was logged by the module at its location. "
            "tests/differential/groundtruth.py expands all of this into full per-case dicts."
        ),
        "volatile_fields": list(VOLATILE_FIELDS),
        "stubs": header.get("stubs", []),
        "stubbed_modules_imported": header.get("stubbed_modules_imported", []),
        "gpus": GPUS,
        "parsed_defaults": defaults,
        "steps": step_ids.names,
        "lists": intern.table,
        "summary": {
            "cases": len(out_cases),
            "rejected": sum(1 for c in out_cases if c.get("error")),
            "harness_errors": sum(1 for c in out_cases if c.get("harness_error")),
        },
        "cases": out_cases,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", required=True)
    ap.add_argument("--sglang-root", required=True)
    ap.add_argument("--deps", required=True, help="per-release overlay directory (transformers)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--subset", type=int, default=None, metavar="EVERY",
                    help="record the deterministic subset SUBSET_RULE describes")
    ap.add_argument("--only", default=None, help="substring filter on case ids")
    ap.add_argument("--list", action="store_true", help="print the case ids and exit")
    args = ap.parse_args(argv)

    cases = build_matrix(args.version, args.limit)
    if args.subset:
        cases = subset(cases, args.subset)
    if args.only:
        cases = [c for c in cases if args.only in c["id"]]
    if args.list:
        for c in cases:
            print(c["id"], " ".join(c["argv"][4:]))
        print(len(cases), "cases", file=sys.stderr)
        return 0
    work = Path(tempfile.mkdtemp(prefix=f"resolve-{args.version}-", dir=os.environ.get("GT_WORK", "/tmp/fs-gt")))
    results, header = run_groups(cases, args, work)
    data = assemble(args.version, cases, results, header)
    if args.subset:
        matrix = {"subset": SUBSET_RULE, "every": args.subset, "flagsets": list(SUBSET_FLAGSETS),
                  "full_matrix_cases": len(build_matrix(args.version, args.limit))}
    else:
        matrix = {"subset": None, "full_matrix_cases": len(cases)}
    cases_out = data.pop("cases")
    data.update(matrix=matrix, cases=cases_out)
    text = json.dumps(data, indent=None, separators=(",", ":"), ensure_ascii=False)
    # one case per line keeps diffs readable
    text = text.replace(',{"id":"', ',\n{"id":"')
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    size = len(text.encode())
    print(f"{args.version}: {data['summary']} -> {args.out} ({size / 1024:.0f} KiB); work dir {work}")
    # A case without a result (an import that failed, a timeout) is no ground truth.
    return 1 if data["summary"]["harness_errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
