#!/usr/bin/env bash
# End-to-end tests of `mlacheck` with misbehaving backend plugins, through the real executable:
#   crash:        a plugin that crashes (SIGSEGV) in one case costs that case alone: ERRORED naming
#                 the signal, every other row present, exit status 1;
#   hang:         a plugin that never returns from one case is killed by the watchdog, the run goes on;
#   not_a_plugin: run, scenarios and bench refuse a library with no entry point before any case
#                 runs, naming its path (exit status 2);
#   open_fails:   a plugin whose open() fails is a backend that cannot start: `run` and `scenarios`
#                 stop before any case runs, naming its message (exit 2), and `run` leaves no rows.
# Usage: plugin_cli_test.sh <mlacheck> <scratch folder> crash|hang|not_a_plugin|open_fails <test plugin folder>
set -u
mlacheck=$1
work=$2/$3
plugins=$4
faulty=$plugins/libmlacheck_test_plugin_faulty_process.so
no_entry=$plugins/libmlacheck_test_plugin_no_entry.so
open_fails=$plugins/libmlacheck_test_plugin_open_fails.so
rm -rf "$work" && mkdir -p "$work"
args=(run --property-cases 8 --seed 3 --backend "$faulty")
victim=sweep-2  # an mla_decode case of the property sweep

fail() { echo "FAIL: $*"; exit 1; }
# Rows in report.csv (records start with an id and a comma; repro strings never start a line).
rows() { grep -c -E '^[A-Za-z0-9_.-]+,(mla_decode|kv_gather),' "$1"; }

clean_run() {
  "$mlacheck" "${args[@]}" --out "$work" > "$work/clean.log" 2>&1 || fail "clean run failed: $(tail -3 "$work/clean.log")"
  total=$(rows "$work/report.csv")
  [ "$total" -gt 10 ] || fail "clean run wrote only $total rows"
  grep -q -E "^$victim,mla_decode,.*,test-faulty_process,([^,]*,){0,4}plugin,,PASSED," "$work/report.csv" \
    || fail "the victim case $victim did not pass on the plugin in the clean run"
}

case $3 in
crash)
  clean_run
  MLACHECK_TEST_PLUGIN_CRASH_CASE=$victim "$mlacheck" "${args[@]}" --out "$work" --force > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1 (an ERRORED case)"
  grep -q "^$victim,.*ERRORED,the worker process died while running this case: signal 11" "$work/report.csv" \
    || fail "no ERRORED row naming signal 11 for the crashed case"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows, expected $total"
  [ "$(grep -c ',ERRORED,' "$work/report.csv")" -eq 1 ] || fail "more than the crashed case is ERRORED"
  ;;
hang)
  clean_run
  MLACHECK_TEST_PLUGIN_HANG_CASE=$victim timeout 300 "$mlacheck" "${args[@]}" --timeout 10 --out "$work" --force \
    > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  # The limit is the base of 10 s plus time that grows with the case's size (case_timeout_s).
  grep -q -E "^$victim,.*ERRORED,timed out after [0-9]+ s \\(watchdog\\)" "$work/report.csv" || fail "no watchdog row for the hung case"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows, expected $total"
  ;;
not_a_plugin)
  expected="backend plugin $no_entry: exports no mlacheck_backend_entry"
  for command in "run --case mla_decode:name=x --out $work" "scenarios" "bench --quick"; do
    # shellcheck disable=SC2086 # the command's words split on purpose
    out=$("$mlacheck" $command --backend "$no_entry" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || fail "$command: exit status $rc, expected 2: $out"
    printf '%s\n' "$out" | grep -qF "mlacheck: error: $expected" || fail "$command: no error naming the plugin: $out"
  done
  [ ! -s "$work/report.csv" ] || fail "run wrote rows before refusing the plugin"
  ;;
open_fails)
  out=$("$mlacheck" run --property-cases 4 --backend "$open_fails" --out "$work" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "run: exit status $rc, expected 2: $out"
  printf '%s\n' "$out" | grep -qF "open(0) failed: no accelerator" || fail "run: no error naming open(): $out"
  [ ! -s "$work/report.csv" ] || fail "run wrote rows for a backend that cannot start"
  out=$("$mlacheck" scenarios --backend "$open_fails" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "scenarios: exit status $rc, expected 2: $out"
  printf '%s\n' "$out" | grep -qF "open(0) failed: no accelerator" || fail "scenarios: no error naming open(): $out"
  ;;
esac
echo "PASS: $3"
