#!/usr/bin/env bash
# The example plugins through `mlacheck` as a user runs them (docs/backends.md), no GPU needed:
#   cpu_run:       the main job (`mlacheck run`, the default plan) on the CPU example passes: every
#                  mla_decode row PASSED on backend cpu-example but those SKIPPED for lack of host
#                  memory (a pool past 4 GiB staged in host memory), the kv_gather rows SKIPPED;
#   wrong_run:     the wrong example makes `mlacheck run` exit 1 with FAILED rows naming tensor O
#                  (the plan of examples/host_tests.plan: the claim is about how a wrong backend
#                  fails, which every row shows; cpu_run keeps the full plan);
#   cpu_scenarios: `mlacheck scenarios` runs the clean rows and says the faults are not applicable;
#   cpu_bench:     `mlacheck bench` times the CPU example's run() with a steady clock;
#   cpu_bench_harness: its harness section on a tiny plan prints each target's line, well formed
#                  (figures, the target, and met, missed or the device part not measured).
# Usage: example_plugin_test.sh <mlacheck> <scratch folder> <test> <plugin> <source folder>
set -u
mlacheck=$1
work=$2/$3
plugin=$4
source=$5
rm -rf "$work" && mkdir -p "$work"

fail() { echo "FAIL: $*"; exit 1; }
count() { grep -c -E "$1" "$work/report.csv"; }
# Between the backend and path columns report.csv may hold others (its version, the device's
# name, index and bus id): match up to four fields there.
between='([^,]*,){0,4}'

case $3 in
cpu_run)
  "$mlacheck" run --backend "$plugin" --out "$work" > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc: $(grep -E '^(FAILED|ERRORED)' "$work/run.log" | head -5)"
  passed=$(count "^[^,]+,mla_decode,.*,cpu-example,${between}plugin,,PASSED,")
  decode=$(count '^[^,]+,mla_decode,.*,cpu-example,')
  memory=$(count "^[^,]+,mla_decode,.*,cpu-example,.*,SKIPPED,\"?not enough memory on this machine: ")
  [ "$passed" -gt 100 ] && [ $((passed + memory)) -eq "$decode" ] \
    || fail "$passed of $decode mla_decode rows PASSED ($memory SKIPPED for lack of memory)"
  gather=$(count '^[^,]+,kv_gather,')
  skipped=$(count '^[^,]+,kv_gather,.*,SKIPPED,plugin backends run mla_decode only,')
  [ "$gather" -gt 0 ] && [ "$skipped" -eq "$gather" ] || fail "$skipped of $gather kv_gather rows SKIPPED"
  ;;
wrong_run)
  "$mlacheck" run --backend "$plugin" --plan "$source/examples/host_tests.plan" --out "$work" > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  failed=$(count "^[^,]+,mla_decode,.*,wrong-example,${between}plugin,,FAILED,\"?O: ")
  [ "$failed" -gt 10 ] || fail "only $failed FAILED rows name tensor O"
  [ "$(count ',ERRORED,')" -eq 0 ] || fail "ERRORED rows: the wrong example must fail on its numbers, not error"
  ;;
cpu_scenarios)
  out=$("$mlacheck" scenarios --backend "$plugin" --file "$source/scenarios/upstream.csv" \
        --known-bugs "$source/scenarios/known_bugs.csv" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$work/scenarios.log"
  [ $rc -eq 0 ] || fail "exit status $rc: $(tail -5 "$work/scenarios.log")"
  grep -q "the fault columns are not applicable to a backend plugin" "$work/scenarios.log" || fail "no word on the faults"
  grep -q "^ok: [0-9]* cases, 0 problems" "$work/scenarios.log" || fail "$(tail -3 "$work/scenarios.log")"
  grep -q " clean PASSED .* not applicable" "$work/scenarios.log" || fail "no clean PASSED scenario line"
  ;;
cpu_bench)
  out=$("$mlacheck" bench --backend "$plugin" --quick --filter h8-kv1024-q1.split --skip-throughput 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$work/bench.log"
  [ $rc -eq 0 ] || fail "exit status $rc: $(tail -5 "$work/bench.log")"
  grep -q "^host plugin: each run() timed with a steady clock" "$work/bench.log" || fail "no word on the clock"
  grep -q "^h8-kv1024-q1.split_kv .* plugin .* PASSED" "$work/bench.log" || fail "no timed, checked row"
  ;;
cpu_bench_harness)
  out=$("$mlacheck" bench --backend "$plugin" --quick --filter h8-kv1024-q1.split --harness-cases 8 \
        --sitting-cases 2 --oracle-runs 1 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$work/bench.log"
  [ $rc -eq 0 ] || fail "exit status $rc: $(tail -5 "$work/bench.log")"
  number='[0-9]+(\.[0-9]+)?'
  host='device part not measured \(host plugin: this machine.s CPU figure\)'
  grep -qE "^harness targets \(issue 29\), measured in this run; [0-9]+ host threads$" "$work/bench.log" \
    || fail "no harness section heading"
  grep -qE "^oracle dsv3-quick: $number GFLOP/s, dgemm $number GFLOP/s on [0-9]+ threads: $number of dgemm; target >= 0\.333: (met|missed)$" \
    "$work/bench.log" || fail "no well-formed oracle line: $(grep '^oracle' "$work/bench.log")"
  grep -qE "^main job: 8 cases in $number s: $number cases/s \(default plan, 4 cases ahead; oracle $number s, device $number s summed over the rows\); target >= 64\.7 cases/s on a 16-core GPU host: $host$" \
    "$work/bench.log" || fail "no well-formed main job line: $(grep '^main job' "$work/bench.log")"
  # The sitting is a real `mlacheck run` of the plugin: both cases ran and passed, none projected.
  grep -qE "^property sitting: 2 cases in $number s through \`mlacheck run\` \(worker processes, costliest first\): $number cases/s; 2 passed, 0 failed, 0 errored, 0 skipped, 0 other; work budget 1e\+09: [0-9]+ draws over it drawn again, 0 left out$" \
    "$work/bench.log" || fail "no well-formed sitting line: $(grep '^property sitting' "$work/bench.log")"
  grep -qE "^property sitting target: 100000 cases in <= 10 min on one GPU host: not judged \(this sitting had 2 cases; --sitting-cases 100000 measures the target's\)$" \
    "$work/bench.log" || fail "the 2-case sitting was judged against the 100000-case target"
  ;;
esac
echo "PASS: $3"
