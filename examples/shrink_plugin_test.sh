#!/usr/bin/env bash
# `mlacheck shrink` on the example plugins (docs/shrinking.md), no GPU needed:
#   wrong_shrink:  a large failing case of the wrong example (rope left out of the score) shrinks
#                  to a case of one request that still fails on O, the same result twice, exit 1;
#                  `--out` writes the original's row with the shrunk case in shrunk_repro, and the
#                  shrunk case fails when `mlacheck run` replays it;
#   shrink_bounds: --max-steps 3 runs 3 candidates and still reports a case that fails;
#   shrink_passing: a case the CPU example passes is reported as not failing and kept, exit 0;
#   shrink_bad_input: a malformed repro string, a kv_gather case and a missing --case are usage
#                  errors (exit 2) naming what is wrong.
# Usage: shrink_plugin_test.sh <mlacheck> <scratch folder> <test> <wrong plugin> <cpu plugin>
set -u
mlacheck=$1
work=$2/$3
wrong=$4
cpu=$5
rm -rf "$work" && mkdir -p "$work"

fail() { echo "FAIL: $*"; exit 1; }
large='mla_decode:name=large;heads=128;tp=8;rank=2;kv=5521,17,300,64,1,2048,900,33,4000,12,5,77,1000,2,3,4,5,6,7,8,9;q=4,1*20;bs=64;o_dtype=f32;profile=sink;seed=7'
# The repro of the line after "shrunk (...)": the command that replays the result.
shrunk_of() { grep -A1 '^shrunk (' "$1" | tail -1 | sed -e 's/.*--case "//' -e 's/"$//'; }

case $3 in
wrong_shrink)
  "$mlacheck" shrink --backend "$wrong" --case "$large" --out "$work/report" > "$work/a.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1: $(tail -5 "$work/a.log")"
  grep -q '^original: FAILED: O: ' "$work/a.log" || fail "the original does not FAIL on O: $(grep '^original' "$work/a.log")"
  grep -q '^shrunk (minimal after [0-9]* steps, [0-9]* candidates run, .*): FAILED: O: ' "$work/a.log" \
    || fail "no shrunk FAILED line: $(tail -3 "$work/a.log")"
  shrunk=$(shrunk_of "$work/a.log")
  case $shrunk in *";kv=1;"*|*";kv=2;"*|*";kv=3;"*) ;; *) fail "not one short request: $shrunk" ;; esac
  case $shrunk in *";q=1;"*) ;; *) fail "not one query token: $shrunk" ;; esac
  case $shrunk in *";heads=1;tp=1;"*) ;; *) fail "not one head: $shrunk" ;; esac
  "$mlacheck" shrink --backend "$wrong" --case "$large" > "$work/b.log" 2>&1
  [ "$(shrunk_of "$work/b.log")" = "$shrunk" ] || fail "a second shrink ended elsewhere: $(shrunk_of "$work/b.log")"
  diff <(grep '^step ' "$work/a.log") <(grep '^step ' "$work/b.log") > /dev/null || fail "the steps differ between runs"
  csv=$work/report/report.csv
  [ -f "$csv" ] || fail "no $csv"
  head -1 "$csv" | grep -qE ',shrunk_repro(,|$)' || fail "report.csv has no shrunk_repro column"
  [ "$(grep -c '^large,mla_decode,' "$csv")" -eq 1 ] || fail "report.csv lacks the original's row"
  row=$(tail -1 "$csv")
  # The row keeps the original repro, FAILED, and the shrunk repro in its column (followed by the
  # typed disposition's columns).
  case $row in
    'large,mla_decode,"mla_decode:name=large;heads=128;'*",FAILED,"*) ;;
    *) fail "the row does not keep the original repro: $row" ;;
  esac
  case "$row," in
    *",$shrunk,"*|*",\"$shrunk\","*) ;;
    *) fail "the row does not hold the shrunk repro: $row" ;;
  esac
  "$mlacheck" run --backend "$wrong" --case "$shrunk" > "$work/replay.log" 2>&1
  [ $? -eq 1 ] || fail "the shrunk case does not fail when replayed: $(tail -3 "$work/replay.log")"
  ;;
shrink_bounds)
  "$mlacheck" shrink --backend "$wrong" --case "$large" --max-steps 3 > "$work/a.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  grep -q '^shrunk (max steps after [0-9]* steps, 3 candidates run, .*): FAILED: O: ' "$work/a.log" \
    || fail "not stopped at 3 candidates: $(grep '^shrunk' "$work/a.log")"
  ;;
shrink_passing)
  "$mlacheck" shrink --backend "$cpu" --case "$large" --out "$work/report" > "$work/a.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0: $(tail -3 "$work/a.log")"
  grep -q '^original: PASSED' "$work/a.log" || fail "the original is not PASSED: $(grep '^original' "$work/a.log")"
  grep -q '^NOT FAILING: .*the original is kept' "$work/a.log" || fail "no word that it does not fail"
  grep -q '^step ' "$work/a.log" && fail "steps taken from a passing case"
  tail -1 "$work/report/report.csv" | grep -q ',PASSED,.*,$' || fail "the row has a shrunk repro or did not pass"
  ;;
shrink_bad_input)
  "$mlacheck" shrink --backend "$wrong" --case 'mla_decode:kv=1;q=1;bogus=3' > "$work/a.log" 2>&1
  [ $? -eq 2 ] || fail "a malformed repro string: exit status not 2"
  grep -q -- "--case: malformed repro string: .*bogus" "$work/a.log" || fail "no clear error: $(cat "$work/a.log")"
  "$mlacheck" shrink --backend "$wrong" --case 'mla_decode:kv=4;q=8' > "$work/b.log" 2>&1
  [ $? -eq 2 ] || fail "an invalid problem: exit status not 2"
  grep -q -- "--case: invalid mla_decode problem: q=8" "$work/b.log" || fail "no clear error: $(cat "$work/b.log")"
  "$mlacheck" shrink --backend "$wrong" --case 'kv_gather:name=g' > "$work/c.log" 2>&1
  [ $? -eq 2 ] || fail "a kv_gather case: exit status not 2"
  grep -q "shrinking takes mla_decode cases" "$work/c.log" || fail "no clear error: $(cat "$work/c.log")"
  "$mlacheck" shrink --backend "$wrong" > "$work/d.log" 2>&1
  [ $? -eq 2 ] || fail "no --case: exit status not 2"
  ;;
*)
  fail "unknown test $3"
  ;;
esac
echo "PASS: $3"
