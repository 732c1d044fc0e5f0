#!/usr/bin/env bash
# Regenerate flagscan's ground truth from SGLang's own code (see README.md).
#
#   tests/differential/make_groundtruth.sh [inventory|resolution|all] [VERSION...]
#
# Idempotent: the virtualenv, the downloaded wheels, the unpacked releases and the
# per-release transformers overlays are made once under $GT_WORK (default
# /tmp/fs-gt) and reused. Nothing from SGLang is written into the repository
# except the JSON results under tests/data/groundtruth/.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="${GT_WORK:-/tmp/fs-gt}"
PY="${GT_PYTHON:-python3.11}"
DATA="$REPO/tests/data/groundtruth"
MODE="${1:-all}"
shift || true
VERSIONS=("$@")
# The releases the README names, and one per minor step between them.
ALL_VERSIONS=(0.5.5 0.5.8 0.5.10 0.5.12 0.5.14 0.5.16 0.5.18 0.5.20 0.5.22 0.5.23)
if [ ${#VERSIONS[@]} -eq 0 ]; then
  VERSIONS=("${ALL_VERSIONS[@]}")
fi
RES_VERSIONS_DEFAULT=("${ALL_VERSIONS[@]}")
# Full configuration matrix for these; the others record the deterministic
# subset of record_resolutions.py --subset (1 in SUBSET_EVERY, plus the pinned
# cases), which keeps the replay of every release within CI's time.
RES_FULL=" 0.5.10 0.5.14 0.5.20 0.5.23 "
SUBSET_EVERY=8

# torch is the CPU build; the pin keeps later installs from replacing it.
TORCH_PIN="torch==2.13.0"
# Light SGLang runtime dependencies that `sglang.srt.server_args` (and what it
# imports) needs at import time. Heavy GPU packages are stubbed instead (gt_env.py).
COMMON_DEPS=(
  numpy pyyaml requests packaging psutil msgspec pydantic orjson einops
  safetensors tqdm regex sentencepiece filelock pybase64 aiohttp fastapi uvicorn
  uvloop pyzmq setproctitle prometheus-client python-multipart partial_json_parser
  interegular pillow tiktoken openai anthropic jinja2 blobfile ipython scipy
  watchfiles py-spy xxhash zstandard distro easydict python-dateutil dill loguru gguf
)
# Pure-Python SGLang dependencies whose own requirements (torch, transformers) the
# venv and the per-release overlay already provide: installed without them.
# sglang.srt.layers.quantization imports compressed_tensors (0.5.22+ pin 0.18.0).
NO_DEPS=(compressed-tensors==0.18.0)

mkdir -p "$WORK"/{wheels,src,deps,logs}
export PIP_DISABLE_PIP_VERSION_CHECK=1
echo "$TORCH_PIN" > "$WORK/constraints.txt"

venv() {
  if [ ! -x "$WORK/venv/bin/python" ]; then
    "$PY" -m venv "$WORK/venv"
  fi
  if ! "$WORK/venv/bin/python" -c "import torch, msgspec, dill, loguru, gguf" 2>/dev/null; then
    "$WORK/venv/bin/pip" install -q -c "$WORK/constraints.txt" "$TORCH_PIN" "${COMMON_DEPS[@]}"
  fi
  if ! "$WORK/venv/bin/python" -c "import compressed_tensors" 2>/dev/null; then
    "$WORK/venv/bin/pip" install -q --no-deps "${NO_DEPS[@]}"
  fi
}

release() {  # download + unpack one release, make its transformers overlay
  local v="$1"
  local whl
  whl=$(ls "$WORK/wheels/$v"/sglang-"$v"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ]; then
    if ls /tmp/sg/w"$v"/sglang-"$v"-*.whl >/dev/null 2>&1; then
      mkdir -p "$WORK/wheels/$v" && cp /tmp/sg/w"$v"/sglang-"$v"-*.whl "$WORK/wheels/$v/"
    else
      "$WORK/venv/bin/pip" download -q --no-deps "sglang==$v" -d "$WORK/wheels/$v"
    fi
    whl=$(ls "$WORK/wheels/$v"/sglang-"$v"-*.whl | head -1)
  fi
  if [ ! -f "$WORK/src/$v/sglang/srt/server_args.py" ]; then
    rm -rf "$WORK/src/$v.tmp" && mkdir -p "$WORK/src/$v.tmp"
    (cd "$WORK/src/$v.tmp" && unzip -q "$whl" 'sglang/*')
    rm -rf "$WORK/src/$v" && mv "$WORK/src/$v.tmp" "$WORK/src/$v"
  fi
  # The release's own transformers pin, installed into a per-release overlay
  # that is put first on PYTHONPATH (releases span transformers 4.57 .. 5.19).
  if [ ! -d "$WORK/deps/$v/transformers" ]; then
    local tpin
    tpin=$(unzip -p "$whl" '*.dist-info/METADATA' | grep -E '^Requires-Dist: transformers==' | head -1 | sed 's/Requires-Dist: //; s/ .*//')
    "$WORK/venv/bin/pip" install -q --target "$WORK/deps/$v" -c "$WORK/constraints.txt" "${tpin:-transformers}"
  fi
}

inventory() {
  local v="$1"
  mkdir -p "$DATA/inventory"
  PYTHONHASHSEED=0 PYTHONPATH="$WORK/deps/$v" "$WORK/venv/bin/python" "$HERE/dump_inventory.py" \
    --sglang-root "$WORK/src/$v" --out "$DATA/inventory/$v.json" 2> "$WORK/logs/inventory-$v.log"
}

resolution() {
  local v="$1" subset=()
  case "$RES_FULL" in *" $v "*) ;; *) subset=(--subset "$SUBSET_EVERY") ;; esac
  mkdir -p "$DATA/resolution"
  PYTHONHASHSEED=0 "$WORK/venv/bin/python" "$HERE/record_resolutions.py" \
    --version "$v" --sglang-root "$WORK/src/$v" --deps "$WORK/deps/$v" \
    --python "$WORK/venv/bin/python" --out "$DATA/resolution/$v.json" \
    "${subset[@]}" ${GT_RES_ARGS:-}
}

venv
case "$MODE" in
  inventory)
    for v in "${VERSIONS[@]}"; do release "$v"; inventory "$v"; done ;;
  resolution)
    if [ $# -eq 0 ]; then VERSIONS=("${RES_VERSIONS_DEFAULT[@]}"); fi
    for v in "${VERSIONS[@]}"; do release "$v"; resolution "$v"; done ;;
  all)
    for v in "${VERSIONS[@]}"; do release "$v"; inventory "$v"; done
    for v in "${RES_VERSIONS_DEFAULT[@]}"; do resolution "$v"; done ;;
  *)
    echo "usage: $0 [inventory|resolution|all] [VERSION...]" >&2; exit 2 ;;
esac
