#!/usr/bin/env bash
# End-to-end tests of `mlacheck run`'s crash isolation (run/isolated_cases.hpp), through the real
# executable:
#   crash:  a worker process that aborts mid-case costs that case alone (ERRORED, signal named),
#           every other row is there, and the exit status is 1;
#   hang:   the watchdog kills a worker process stuck in a case and the run goes on;
#   resume: a run killed with SIGKILL (parent and workers) keeps every finished row, and
#           --resume runs exactly the missing cases: no row lost, none twice; resuming the
#           finished report runs nothing (every case, scenarios included, has one id in the plan
#           and in its row).
# The worker breaks on purpose through MLACHECK_TEST_CRASH_CASE / MLACHECK_TEST_HANG_CASE.
# Usage: run_isolation_test.sh <mlacheck> <scratch folder> crash|hang|resume
set -u
mlacheck=$1
work=$2/$3
rm -rf "$work" && mkdir -p "$work"
args=(run --property-cases 8 --seed 3)

fail() { echo "FAIL: $*"; exit 1; }
# Rows in report.csv (records start with an id and a comma; repro strings never start a line).
rows() { grep -c -E '^[A-Za-z0-9_.-]+,(mla_decode|kv_gather),' "$1"; }
ids_unique() { cut -d, -f1 "$1" | sort | uniq -d | grep -q . && return 1 || return 0; }

# The size of the whole run, from a clean run of the same plan.
"$mlacheck" "${args[@]}" --out "$work" > "$work/clean.log" 2>&1 || fail "clean run failed: $(tail -3 "$work/clean.log")"
total=$(rows "$work/report.csv")
[ "$total" -gt 10 ] || fail "clean run wrote only $total rows"
cp "$work/report.csv" "$work/clean.csv"

case $3 in
crash)
  MLACHECK_TEST_CRASH_CASE=oracle-kimi-k2.5-tp8 "$mlacheck" "${args[@]}" --out "$work" --force > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1 (an ERRORED case)"
  grep -q '^oracle-kimi-k2.5-tp8,.*ERRORED,the worker process died while running this case: signal 6' "$work/report.csv" \
    || fail "no ERRORED row naming signal 6 for the crashed case"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows, expected $total"
  ;;
hang)
  MLACHECK_TEST_HANG_CASE=oracle-deepseek-v2-lite-tp2 timeout 120 "$mlacheck" "${args[@]}" --timeout 2 --out "$work" --force \
    > "$work/run.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  grep -q '^oracle-deepseek-v2-lite-tp2,.*ERRORED,timed out after 2 s (watchdog)' "$work/report.csv" \
    || fail "no watchdog row for the hung case"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows, expected $total"
  ;;
resume)
  # Hang at the third case with a long watchdog, kill everything once two rows are written.
  setsid env MLACHECK_TEST_HANG_CASE=oracle-deepseek-v2-lite-tp2 "$mlacheck" "${args[@]}" --timeout 600 \
    --out "$work" --force > "$work/run.log" 2>&1 &
  leader=$!
  for _ in $(seq 1 200); do
    [ -f "$work/report.csv" ] && [ "$(rows "$work/report.csv")" -ge 2 ] && break
    sleep 0.1
  done
  sleep 0.5
  kill -KILL -- -"$leader" 2>/dev/null
  wait "$leader" 2>/dev/null
  kept=$(rows "$work/report.csv")
  [ "$kept" -eq 2 ] || fail "the killed run kept $kept rows, expected the 2 finished ones"
  "$mlacheck" "${args[@]}" --out "$work" --resume > "$work/resume.log" 2>&1 || fail "resume failed: $(tail -3 "$work/resume.log")"
  grep -q "2 kept from the report being resumed" "$work/resume.log" || fail "resume did not keep the 2 rows"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows after resume, expected $total"
  ids_unique "$work/report.csv" || fail "a case appears twice after resume"
  diff <(cut -d, -f1 "$work/clean.csv" | sort) <(cut -d, -f1 "$work/report.csv" | sort) > /dev/null \
    || fail "resumed report holds other cases than a clean run"
  "$mlacheck" "${args[@]}" --out "$work" --resume > "$work/again.log" 2>&1 || fail "second resume failed: $(tail -3 "$work/again.log")"
  grep -q "; 0 cases to run, $total kept from the report being resumed" "$work/again.log" \
    || fail "resuming a finished report ran cases again: $(head -1 "$work/again.log")"
  [ "$(rows "$work/report.csv")" -eq "$total" ] || fail "$(rows "$work/report.csv") rows after a second resume, expected $total"
  ;;
esac
echo "PASS: $3"
