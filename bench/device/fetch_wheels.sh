#!/usr/bin/env bash
# Run HERE (with network), from the repository root: fills .device/wheels (git-ignored,
# never committed) for bench/device/run_h200.sh. The device runs Python 3.12 on x86-64.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.device/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.device/' >> .git/info/exclude; }
mkdir -p .device/wheels
python3 -m pip wheel -q --no-deps -w .device/wheels .    # flagscan itself
# shellcheck disable=SC2046
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform manylinux_2_34_x86_64 \
  --platform manylinux_2_31_x86_64 --platform manylinux_2_24_x86_64 -d .device/wheels \
  $(grep -v '^#' bench/device/wheels.txt | grep -v '^$')
du -sh .device/wheels   # must stay well under the 64 MiB a device call may carry
