"""bench: score flagscan's three phases against the startup-incident dataset (tests/data/startup).

For every incident and known-good deployment, runs `flagscan resolve --format json`
on the entry's release, GPU, model and command, and compares what flagscan predicts
with what the entry records:

- crash, phase startup/resolution: a rejection of that phase at the recorded file
  (certain or possible); the line is compared too and reported;
- setting: the recorded settings written at startup with the recorded values;
- crash, phase serving: a rejection of phase serving at the recorded line, or in the
  recorded file with the recorded message (the serving phase calls what the startup
  entry built with a batch not known); scored apart from the resolution/startup
  incidents, with the condition flagscan names;
- good: no certain rejection in any phase (a certain one is a false alarm).

Usage: python bench/startup_incidents.py [--cache-dir DIR] [--only ID...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "startup"
MODELS = [ROOT / "tests" / "data" / "groundtruth" / "models", DATA / "models"]


def load(kind: str) -> list[dict]:
    return [tomllib.loads(p.read_text()) | {"_file": p.name} for p in sorted((DATA / kind).glob("*.toml"))]


def command(entry: dict, cache: str) -> list[str]:
    cmd = [sys.executable, "-m", "flagscan", "--sglang", entry["release"], "--cache-dir", cache, "-q",
           "resolve", "--format", "json", "--gpu", entry["gpu"], "--gpu-count", str(entry.get("gpu_count", 1))]
    if entry.get("gpu_name"):
        cmd += ["--gpu-name", entry["gpu_name"]]
    model = entry.get("model")
    found = next((d / model for d in MODELS if model and (d / model / "config.json").is_file()), None)
    if found is not None:
        cmd += ["--model-config", str(found)]
    elif entry.get("model_arch"):
        cmd += ["--model-arch", entry["model_arch"]]
    for k, v in sorted(entry.get("env", {}).items()):
        cmd += ["--env", f"{k}={v}"]
    return cmd + ["--", *entry["argv"]]


def judge(entry: dict, doc: dict | None, good: bool) -> tuple[str, str]:
    if doc is None:
        return "error", "flagscan failed"
    rejections = doc.get("rejections", [])
    if good:
        certain = [r for r in rejections if r.get("certain")]
        return ("false-alarm", certain[0]["location"]) if certain else ("ok", "")
    exp = entry["expected"]
    if exp["outcome"] == "setting":
        settings = doc.get("settings", {})
        wrong = {k: (settings.get(k, {}).get("value"), v) for k, v in exp.get("settings", {}).items()
                 if settings.get(k, {}).get("value") != v}
        return ("caught", "") if not wrong else ("missed", json.dumps(wrong, default=str))
    path, _, line = exp["location"].rpartition(":")
    same = [r for r in rejections if r.get("phase", "resolution") == exp["phase"] and r["location"].startswith(path + ":")]
    if not same:
        other = [r["location"] for r in rejections]
        return "missed", f"predicted {other[:3]}" if other else "no rejection predicted"
    exact = [r for r in same if r["location"] == exp["location"]]
    if exp["phase"] == "serving":
        # a serving raise elsewhere in the same file is another kind of batch's failure, not this one
        same = exact or [r for r in same if exp["message"].lower() in (r.get("message") or "").lower()]
        if not same:
            return "missed", f"predicted {[r['location'] for r in rejections][:3]} (none at the recorded raise)"
    best = (exact or same)[0]
    kind = "caught" if best.get("certain") else "caught-possible"
    where = "" if exact else f"line {best['location']} (recorded {line})"
    when = f"when {best['condition']}" if exp["phase"] == "serving" and best.get("condition") else ""
    return kind, "; ".join(x for x in (where, when) if x)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache-dir", default=str(Path.home() / ".cache" / "flagscan-bench"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    for kind, good in (("incidents", False), ("good", True)):
        for entry in load(kind):
            if args.only and entry["id"] not in args.only:
                continue
            t = time.time()
            proc = subprocess.run(command(entry, args.cache_dir), capture_output=True, text=True, cwd=ROOT)
            try:
                doc = json.loads(proc.stdout) if proc.stdout.strip() else None
            except ValueError:
                doc = None
            verdict, detail = judge(entry, doc, good)
            if doc is None:
                detail = (proc.stderr.strip().splitlines() or ["?"])[-1][:160]
            row = {"id": entry["id"], "kind": kind, "release": entry["release"], "verdict": verdict,
                   "detail": detail, "python": entry.get("cause_in_python", True),
                   "phase": entry.get("expected", {}).get("phase", ""), "seconds": round(time.time() - t, 1)}
            rows.append(row)
            print(f"{row['verdict']:15} {row['seconds']:6.1f}s {entry['release']:10} {entry['id']}  {detail}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    inc = [r for r in rows if r["kind"] == "incidents"]
    py = [r for r in inc if r["python"] and r["phase"] != "serving"]
    caught = [r for r in py if r["verdict"].startswith("caught")]
    serving = [r for r in inc if r["phase"] == "serving"]
    serving_py = [r for r in serving if r["python"]]
    goods = [r for r in rows if r["kind"] == "good"]
    print(f"\nincidents with the cause in SGLang's Python source, startup/resolution phase: {len(caught)}/{len(py)} caught"
          f" ({sum(r['verdict'] == 'caught' for r in py)} certain); serving-phase incidents: "
          f"{sum(r['verdict'].startswith('caught') for r in serving)}/{len(serving)} caught "
          f"({sum(r['verdict'].startswith('caught') for r in serving_py)}/{len(serving_py)} with the cause in SGLang's "
          f"Python source); known-good: {sum(r['verdict'] == 'false-alarm' for r in goods)} false alarms of {len(goods)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
