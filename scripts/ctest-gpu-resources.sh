#!/usr/bin/env bash
# Writes a CTest resource spec with one "gpus" resource per visible GPU, each with several slots,
#   ctest --test-dir build --resource-spec-file gpus.json -j <cores>
# then runs that many device tests (RESOURCE_GROUPS gpus:1) on each GPU at once, every process
# pinned to its GPU (device/platform/ctest_gpu_pin.cpp). A device test is a process of its own with
# its own GPU context, whose start costs more than most tests' work; one GPU takes many such
# processes at once, so the suite's time is bound by cores, not by contexts started one by one.
# Slots per GPU: the second argument, else MLACHECK_CTEST_SLOTS_PER_GPU, else the machine's cores
# shared evenly by its GPUs (at least 1, at most 16).
# Without any GPU the spec holds one stand-in, id "none", with a slot per core: the device tests
# still run (each reports SKIPPED with the reason) and the pin leaves the process alone.
# Usage: scripts/ctest-gpu-resources.sh <build dir> [slots per GPU] > gpus.json
set -euo pipefail
build=${1:-build}
count=$("$build/cli/mlacheck" devices | grep -c -E '^[0-9]+: ' || true)
slots=${2:-${MLACHECK_CTEST_SLOTS_PER_GPU:-}}
if [ -z "$slots" ]; then
  cores=$(nproc)
  slots=$(( count > 0 ? cores / count : cores ))
  (( slots < 1 )) && slots=1
  (( slots > 16 )) && slots=16
fi
if ! [[ "$slots" =~ ^[1-9][0-9]*$ ]]; then
  echo "ctest-gpu-resources.sh: slots per GPU must be a positive whole number, not '$slots'" >&2
  exit 2
fi
printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [\n    {\n      "gpus": ['
for ((i = 0; i < count; i++)); do
  [ "$i" -gt 0 ] && printf ','
  printf '\n        {"id": "%d", "slots": %d}' "$i" "$slots"
done
[ "$count" -eq 0 ] && printf '\n        {"id": "none", "slots": %d}' "$slots"
printf '\n      ]\n    }\n  ]\n}\n'
