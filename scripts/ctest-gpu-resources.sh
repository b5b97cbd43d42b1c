#!/usr/bin/env bash
# Writes a CTest resource spec with one "gpus" resource per visible GPU, so that
#   ctest --test-dir build --resource-spec-file gpus.json -j <n>
# runs the device tests (RESOURCE_GROUPS gpus:1) on all GPUs at once, one test per GPU at a time.
# Usage: scripts/ctest-gpu-resources.sh <build dir> > gpus.json
set -euo pipefail
build=${1:-build}
count=$("$build/cli/mlacheck" devices | grep -c -E '^[0-9]+: ' || true)
printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [\n    {\n      "gpus": ['
for ((i = 0; i < count; i++)); do
  [ "$i" -gt 0 ] && printf ','
  printf '\n        {"id": "%d", "slots": 1}' "$i"
done
printf '\n      ]\n    }\n  ]\n}\n'
