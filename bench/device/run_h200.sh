#!/usr/bin/env bash
# On a machine with an NVIDIA H200 and no network: install the carried wheels, then run
#   flagscan detect                     (NVML)
#   flagscan report --gpu auto          (when this checkout has the report command)
#   flagscan resolve --gpu auto  CMD    (the static prediction)
#   flagscan verify --local      CMD    (the installed SGLang's own resolution, compared)
# for the motivating command adapted to one H200. Outputs go to $OUT (default ./device-out).
# See bench/device/README.md for how the wheels get there.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
WHEELS=${WHEELS:-.device/wheels}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export FLAGSCAN_CACHE_DIR=/tmp/flagscan-cache
# multi-GPU hosts of this workplace keep NVLink multicast off; keep it so in every child
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

echo "== install carried wheels from $WHEELS"
ls "$WHEELS"/*.whl >/dev/null 2>&1 || { echo "no wheels in $WHEELS (run bench/device/fetch_wheels.sh here first)"; exit 2; }
"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$WHEELS"/*.whl || exit 2
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export PATH=/tmp/site/bin:$PATH
FS=("$PY" -m flagscan)

{
  echo "== machine"; nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version --format=csv
  "$PY" - <<'EOF'
import importlib.metadata as md, sys
print("python", sys.version.split()[0])
for name in ("torch", "triton", "transformers", "tokenizers", "sglang", "flagscan", "nvidia-ml-py", "libcst"):
    try:
        print(name, md.version(name))
    except md.PackageNotFoundError:
        print(name, "-")
import torch
print("torch.version.cuda", torch.version.cuda, "available", torch.cuda.is_available())
if torch.cuda.is_available():
    print("device", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0),
          torch.cuda.get_device_properties(0).total_memory // 2**20, "MiB")
EOF
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

echo "== flagscan detect"
"${FS[@]}" detect | tee "$OUT/detect.txt"; echo "exit ${PIPESTATUS[0]}"
"${FS[@]}" detect --format json > "$OUT/detect.json"; echo "exit $?"

# The SGLang source flagscan reads: the installed 0.5.10 (offline; no download possible here).
SRC=(--sglang installed --offline)
MODEL=tests/data/groundtruth/models/qwen3.5-122b-a10b
CMD=(--model-path "$MODEL" --tp 1 --speculative-algorithm NEXTN --mamba-scheduler-strategy extra_buffer)

echo "== flagscan report --gpu auto (and the same GPU from the table, to compare)"
if "${FS[@]}" --help 2>/dev/null | grep -qE '^\s+report\b'; then
  "${FS[@]}" "${SRC[@]}" report --gpu auto > "$OUT/report.txt" 2>&1; echo "exit $?"
  head -40 "$OUT/report.txt"
  "${FS[@]}" "${SRC[@]}" report --gpu h200 2>&1 | sed -n 1,6p
else
  echo "this checkout has no report command; skipped" | tee "$OUT/report.txt"
fi

echo "== flagscan resolve --gpu auto (static prediction)"
"${FS[@]}" "${SRC[@]}" resolve --gpu auto --format json -- "${CMD[@]}" > "$OUT/resolve.json"; echo "exit $?"

echo "== is sglang.srt.server_args importable (before any stub)?"
"$PY" -c "import sglang.srt.server_args" 2>&1 | tail -1 || true

echo "== flagscan verify --local (EXECUTES the installed SGLang's resolution on this GPU), several commands"
# --stub-missing: sglang-kernel, flashinfer & co. are not carried (hundreds of MB); they are
# stubbed only because absent, and the JSON lists them under observed.local.stubbed.
M=tests/data/groundtruth/models
mapfile -t COMMANDS < <(grep -v '^#' bench/device/verify_commands.txt | grep -v '^$' | sed "s#\$M#$M#g")
: > "$OUT/verify-local.jsonl"
for c in "${COMMANDS[@]}"; do
  read -r -a ARGS <<< "$c"
  echo "-- verify --local -- $c"
  "${FS[@]}" "${SRC[@]}" verify --local --stub-missing --format json -- "${ARGS[@]}" > /tmp/verify-one.json 2>/tmp/verify-one.err
  rc=$?
  echo "exit $rc"; tail -3 /tmp/verify-one.err
  "$PY" - "$c" "$rc" <<'PYEOF' >> "$OUT/verify-local.jsonl"
import json, sys
cmd, rc = sys.argv[1], int(sys.argv[2])
try:
    data = json.load(open("/tmp/verify-one.json"))
except Exception as exc:  # keep going: one failed command is a line saying so
    data = {"error": f"{type(exc).__name__}: {exc}", "stderr": open("/tmp/verify-one.err").read()[-2000:]}
print(json.dumps({"command": cmd, "exit": rc, "result": data}))
PYEOF
  "$PY" - "$OUT/verify-local.jsonl" <<'PYEOF'
import json, sys
line = open(sys.argv[1]).read().splitlines()[-1]
r = json.loads(line)["result"]
if "summary" in r:
    print(f"   {r['matched']} of {r['compared']} as predicted;", r["summary"],
          "gaps:", [d["setting"] for d in r["differences"] if d["kind"] == "gap"][:20])
else:
    print("   ", json.dumps(r)[:800])
PYEOF
done
echo "== done; files in $OUT"
ls -la "$OUT"
