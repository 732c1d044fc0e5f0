#!/usr/bin/env bash
# Regenerate tests/data/verify/ (see make_data.py). Needs the ground-truth work area
# of tests/differential/make_groundtruth.sh ($GT_WORK: venv/, src/<v>/, deps/<v>/).
set -euo pipefail
cd "$(dirname "$0")/../.."
GT_WORK=${GT_WORK:-/tmp/fs-gt}
if [ ! -d "$GT_WORK/pb/google/protobuf" ]; then
  "$GT_WORK/venv/bin/pip" install -q --target "$GT_WORK/pb" protobuf==6.31.1
fi
for v in ${@:-0.5.5 0.5.10 0.5.14 0.5.20 0.5.23}; do
  for gpu in h200 rtx-pro-6000; do
    PYTHONHASHSEED=0 PYTHONPATH="$GT_WORK/deps/$v:$GT_WORK/pb" timeout 600 \
      "$GT_WORK/venv/bin/python" tests/verify/make_data.py --sglang-root "$GT_WORK/src/$v" --gpu "$gpu"
  done
done
