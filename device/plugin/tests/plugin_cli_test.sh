#!/usr/bin/env bash
# End-to-end tests of `mlacheck` with misbehaving backend plugins, through the real executable:
#   crash:        a plugin that crashes (SIGSEGV) in one case costs that case alone: ERRORED naming
#                 the signal, every other row present, exit status 1;
#   hang:         a plugin that never returns from one case is killed by the watchdog, the run goes on;
#   not_a_plugin: run, scenarios and bench refuse a library with no entry point before any case
#                 runs, naming its path (exit status 2);
#   open_fails:   a plugin whose open() fails is a backend that cannot start: `run` and `scenarios`
#                 stop before any case runs, naming its message (exit 2), and `run` leaves no rows;
#   settle:       rows are settled as on every route (plan/case_settle.hpp): `run` applies a
#                 known-bug table written here (FAILED without it, KNOWN_BUG with it), a plugin's
#                 refusal of a curated case is SKIPPED and counted as not checked in the summary,
#                 junit.xml and report.html (exit 0), and `scenarios` lists the scenarios a plugin
#                 refuses as not checked, not as problems.
#   space:        a plugin declaring a support space (mlacheck_backend_space) has every property case
#                 drawn within it: every sweep row PASSED, none SKIPPED; the summary line and
#                 report.html name what the space excludes.
#   clean:        the run crash and hang repeat, with no fault: more than 10 rows and the victim case
#                 PASSED; a ctest fixture (plugin_cli_clean) that crash and hang compare their rows with,
#                 so the clean run is made once for both.
# Usage: plugin_cli_test.sh <mlacheck> <scratch folder> clean|crash|hang|not_a_plugin|open_fails|settle|space <test plugin folder>
set -u
mlacheck=$1
work=$2/$3
plugins=$4
faulty=$plugins/libmlacheck_test_plugin_faulty_process.so
no_entry=$plugins/libmlacheck_test_plugin_no_entry.so
open_fails=$plugins/libmlacheck_test_plugin_open_fails.so
picky=$plugins/libmlacheck_test_plugin_picky.so
unwritten=$plugins/libmlacheck_test_plugin_unwritten.so
narrow=$plugins/libmlacheck_test_plugin_narrow.so
rm -rf "$work" && mkdir -p "$work"
# The plan of clean, crash and hang: the main job's content without the covering array, whose pools
# past 4 GiB take minutes on a host plugin under a loaded ctest; what these test is the isolation.
cat > "$work.plan" <<'PLAN'
oracle-self-checks
scenarios
default-sweeps
properties seed=3 size=8
PLAN
args=(run --plan "$work.plan" --backend "$faulty")
victim=sweep-2  # an mla_decode case of the property sweep

fail() { echo "FAIL: $*"; exit 1; }
# Rows in report.csv (records start with an id and a comma; repro strings never start a line).
rows() { grep -c -E '^[A-Za-z0-9_.-]+,(mla_decode|kv_gather),' "$1"; }

# The clean run's report, written by the clean test (the fixture crash and hang require).
clean=$2/clean/report.csv
clean_rows() {
  [ -s "$clean" ] || fail "no clean run's $clean: run the plugin.cli.clean test first (ctest's fixture does)"
  total=$(rows "$clean")
}

case $3 in
clean)
  "$mlacheck" "${args[@]}" --out "$work" > "$work/clean.log" 2>&1 || fail "clean run failed: $(tail -3 "$work/clean.log")"
  total=$(rows "$work/report.csv")
  [ "$total" -gt 10 ] || fail "clean run wrote only $total rows"
  grep -q -E "^$victim,mla_decode,.*,test-faulty_process,([^,]*,){0,4}plugin,,PASSED," "$work/report.csv" \
    || fail "the victim case $victim did not pass on the plugin in the clean run"
  ;;
crash)
  clean_rows
  MLACHECK_TEST_PLUGIN_CRASH_CASE=$victim "$mlacheck" "${args[@]}" --out "$work" --force > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1 (an ERRORED case)"
  grep -q "^$victim,.*ERRORED,the worker process died while running this case: signal 11" "$work/report.csv" \
    || fail "no ERRORED row naming signal 11 for the crashed case"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows, expected $total"
  [ "$(grep -c ',ERRORED,' "$work/report.csv")" -eq 1 ] || fail "more than the crashed case is ERRORED"
  ;;
hang)
  clean_rows
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
settle)
  repro='mla_decode:name=settle-case;heads=16;lv=32;rope=16;kv=21,3;q=2,1;bs=4;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=9'
  table=$work/known_bugs.csv
  printf '%s\n' "id,reference,case,path,backend,platform,rank_heads,q_len,note" \
    'cli-bug,issue 8,"mla_decode:kv=21,3",,,,,,rows left unwritten' > "$table"
  "$mlacheck" run --case "$repro" --backend "$unwritten" --known-bugs "" --out "$work/failed" > "$work/failed.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "run without the table: exit status $rc, expected 1"
  grep -q '^settle-case,mla_decode,.*,FAILED,' "$work/failed/report.csv" || fail "no FAILED row without the table"
  "$mlacheck" run --case "$repro" --backend "$unwritten" --known-bugs "$table" --out "$work/known" > "$work/known.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "run with the table: exit status $rc, expected 0"
  grep -q '^settle-case,mla_decode,.*,KNOWN_BUG,"\?known bug cli-bug (issue 8): ' "$work/known/report.csv" \
    || fail "no KNOWN_BUG row naming the entry: $(tail -1 "$work/known/report.csv")"
  # q=2,1: the picky plugin takes one query token per request only.
  "$mlacheck" run --case "$repro" --backend "$picky" --known-bugs "$table" --out "$work/refused" > "$work/refused.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "refused case: exit status $rc, expected 0 (not checked, no failure)"
  grep -q '^settle-case,mla_decode,.*,SKIPPED,picky test plugin: one query token per request only,' \
    "$work/refused/report.csv" || fail "no SKIPPED row with the plugin's reason"
  grep -q '0 passed, 0 failed, 1 skipped (not checked),' "$work/refused.log" || fail "summary: $(tail -3 "$work/refused.log")"
  grep -q 'skipped message="SKIPPED (not checked): picky test plugin' "$work/refused/junit.xml" || fail "junit.xml"
  grep -q '1 cases, 0 FAILED or ERRORED, 1 not checked (SKIPPED);' "$work/refused/report.html" || fail "report.html"
  out=$("$mlacheck" scenarios --backend "$picky" --known-bugs "$table" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$work/scenarios.log"
  [ $rc -eq 0 ] || fail "scenarios: exit status $rc: $(grep -E '^(PROBLEM|NOT)' "$work/scenarios.log" | head -5)"
  grep -q '^NOT CHECKED ON THIS MACHINE: .*: picky test plugin: one query token per request only' "$work/scenarios.log" \
    || fail "scenarios: no refused scenario listed as not checked"
  grep -q '^ok: [0-9]* cases, 0 problems, [0-9]* scenarios not checked' "$work/scenarios.log" \
    || fail "scenarios: $(tail -2 "$work/scenarios.log")"
  ;;
space)
  "$mlacheck" run --property-cases 8 --seed 3 --backend "$narrow" --out "$work" > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  [ "$(grep -c -E '^sweep-[0-9]+,mla_decode,.*,PASSED,' "$work/report.csv")" -eq 8 ] \
    || fail "not every property case PASSED within the plugin's space"
  grep -q -E '^sweep-[0-9]+,.*,SKIPPED,' "$work/report.csv" && fail "a property case was drawn outside the space"
  grep -q "^the backend's space excludes: Lv 128, 256; .*fp8 queries; fp8_e4m3fnuz;.*heads < 16; q_len > 4" \
    "$work/run.log" || fail "no summary line naming what the space excludes"
  grep -q 'id="backend-space"' "$work/report.html" || fail "no backend-space section in report.html"
  ;;
esac
echo "PASS: $3"
