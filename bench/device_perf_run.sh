#!/usr/bin/env bash
# One call on a lent GPU machine (docs/performance.md): the correctness tests, optionally
# compute-sanitizer memcheck of the kernel tests and the upstream scenarios with their kill matrix,
# and the benchmark, from binaries built elsewhere and carried in $BIN. Logs and the bench CSV go
# to $OUT (at most 8 files come back), a short summary last on stdout.
#   bench/device_perf_run.sh [--filter TEXT] [--memcheck] [--scenarios] [--baseline] [--throughput]
# --baseline also times $BIN/mlacheck_base (the kernels before a change) on the same shapes.
# Steps after the tests stop at DEADLINE seconds (default 400) from the start; the bench, cut
# short, still leaves the shapes it timed in its log.
set -u
BIN=${BIN:-.carry/perf}
OUT=${OUT:-/tmp/mlacheck-perf}
mkdir -p "$OUT"
filter=""
baseline=0
memcheck=0
scenarios=0
throughput="--skip-throughput"
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter="$2"; shift ;;
    --baseline) baseline=1 ;;
    --memcheck) memcheck=1 ;;
    --scenarios) scenarios=1 ;;
    --throughput) throughput="" ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

summary=()
note() { summary+=("$1"); echo "== $1"; }
left() { local l=$(( ${DEADLINE:-400} - SECONDS )); echo $(( l > 1 ? l : 1 )); }

nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader > "$OUT/tests.log"
note "HMMA instructions in decode_kernels_test: $(cuobjdump -sass "$BIN/decode_kernels_test" 2>/dev/null | grep -c HMMA)"

for t in decode_kernels_test persistent_test harness_end_to_end_test; do
  start=$SECONDS
  "$BIN/$t" --gtest_brief=1 > "$OUT/$t.tmp" 2>&1
  rc=$?
  note "$t rc=$rc in $((SECONDS - start)) s: $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/$t.tmp" | tr '\n' ' ')"
  [ $rc -ne 0 ] && grep -E "Failure|FAILED|Expected|Which is|mismatches|error" "$OUT/$t.tmp" | head -20
  { echo "### $t"; cat "$OUT/$t.tmp"; } >> "$OUT/tests.log"
  rm -f "$OUT/$t.tmp"
done

if [ $memcheck -eq 1 ]; then
  # Four shards side by side: the sanitizer slows each launch far more than it loads the GPU.
  start=$SECONDS
  budget=$(left)
  pids=()
  for i in 0 1 2 3; do
    GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout "$budget" compute-sanitizer --tool memcheck --error-exitcode 1 \
      "$BIN/decode_kernels_test" --gtest_brief=1 > "$OUT/memcheck_$i.tmp" 2>&1 &
    pids+=($!)
  done
  rcs=""
  for pid in "${pids[@]}"; do wait "$pid"; rcs="$rcs $?"; done
  cat "$OUT"/memcheck_*.tmp > "$OUT/memcheck.log"
  rm -f "$OUT"/memcheck_*.tmp
  note "memcheck shard rcs:$rcs in $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tr '\n' ' ')"
fi

start=$SECONDS
timeout "$(left)" "$BIN/mlacheck" bench --filter "$filter" --csv "$OUT/bench.csv" $throughput > "$OUT/bench.log" 2>&1
note "bench rc=$? in $((SECONDS - start)) s"
if [ $baseline -eq 1 ]; then
  start=$SECONDS
  timeout "$(left)" "$BIN/mlacheck_base" bench --filter "$filter" --csv "$OUT/bench_base.csv" --skip-throughput \
    > "$OUT/bench_base.log" 2>&1
  note "baseline bench rc=$? in $((SECONDS - start)) s"
fi
if [ $scenarios -eq 1 ]; then
  start=$SECONDS
  timeout "$(left)" "$BIN/mlacheck" scenarios > "$OUT/scenarios.log" 2>&1
  rc=$?
  note "scenarios rc=$rc in $((SECONDS - start)) s"
  [ $rc -ne 0 ] && tail -25 "$OUT/scenarios.log"
fi

echo
for s in "${summary[@]}"; do echo "$s"; done
# The table, or the shapes timed before the deadline.
table() { grep -q '^shape ' "$1" && sed -n '/^shape /,$p' "$1" || grep -E ' us |not timed' "$1"; }
table "$OUT/bench.log"
[ $baseline -eq 1 ] && table "$OUT/bench_base.log"
exit 0
