#!/usr/bin/env bash
# scripts/ctest-gpu-resources.sh against a stand-in build whose `mlacheck devices` lists two GPUs:
# every GPU gets the slots asked for (several device tests share one GPU), and ctest accepts the
# spec and runs gpus:1 tests side by side on one GPU, each told its GPU.
# Usage: ctest_gpu_resources_test.sh <source dir> <scratch dir>
set -euo pipefail
src=$1
work=$2
rm -rf "$work" && mkdir -p "$work/fake/cli"
fail() { echo "FAIL: $*"; exit 1; }

cat > "$work/fake/cli/mlacheck" <<'FAKE'
#!/bin/sh
printf 'backend: cuda\n0: NVIDIA H100 80GB HBM3, sm_90\n1: NVIDIA H100 80GB HBM3, sm_90\n'
FAKE
chmod +x "$work/fake/cli/mlacheck"

spec=$("$src/scripts/ctest-gpu-resources.sh" "$work/fake" 4)
[ "$(printf '%s\n' "$spec" | grep -c '"slots": 4')" -eq 2 ] || fail "expected two GPUs of 4 slots: $spec"
default=$(MLACHECK_CTEST_SLOTS_PER_GPU= "$src/scripts/ctest-gpu-resources.sh" "$work/fake")
printf '%s\n' "$default" | grep -q '"id": "1", "slots": ' || fail "no slots for GPU 1: $default"
"$src/scripts/ctest-gpu-resources.sh" "$work/fake" 0 > /dev/null 2>&1 && fail "0 slots accepted"
# Without a GPU the device tests must still run (and SKIP): one stand-in, which the pin ignores.
mkdir -p "$work/none/cli"
printf '#!/bin/sh
printf "backend: none\\ndevices: none (built without GPU support)\\n"\n' > "$work/none/cli/mlacheck"
chmod +x "$work/none/cli/mlacheck"
none=$("$src/scripts/ctest-gpu-resources.sh" "$work/none" 3)
printf '%s\n' "$none" | grep -q '{"id": "none", "slots": 3}' || fail "no stand-in without GPUs: $none"

# Four tests of one GPU slot each, two seconds long, on a spec of one GPU with four slots: run
# side by side they take about two seconds, one after another eight.
printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [{"gpus": [{"id": "0", "slots": 4}]}]\n}\n' > "$work/one-gpu.json"
mkdir -p "$work/project"
cat > "$work/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(slots NONE)
enable_testing()
foreach(i 1 2 3 4)
  add_test(NAME t${i} COMMAND sh -c "[ -n \"$CTEST_RESOURCE_GROUP_0_GPUS\" ] && sleep 2")
  set_tests_properties(t${i} PROPERTIES RESOURCE_GROUPS gpus:1)
endforeach()
CMAKE
cmake -S "$work/project" -B "$work/project/build" > /dev/null || fail "configure"
start=$(date +%s)
ctest --test-dir "$work/project/build" --resource-spec-file "$work/one-gpu.json" -j 4 > "$work/ctest.log" 2>&1 \
  || fail "ctest with the spec failed: $(tail -5 "$work/ctest.log")"
took=$(( $(date +%s) - start ))
[ "$took" -le 6 ] || fail "four one-slot tests on a four-slot GPU took $took s: they did not share it"
echo "PASS: two GPUs of 4 slots; four gpus:1 tests shared one GPU in $took s"
