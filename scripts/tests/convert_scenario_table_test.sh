#!/usr/bin/env bash
# scripts/convert_scenario_table.py: the old 30-column scenario fixture converts to the fixture the
# loader tests read (scenarios/tests/fixtures/good_scenarios.csv, whose values those tests hold to
# what the old loader read), old known-bug rows convert to patterns, and what the new schema cannot
# say stops the conversion naming the line and column.
# Usage: convert_scenario_table_test.sh <source dir> <scratch dir> <python>
set -euo pipefail
src=$1
work=$2
python=$3
convert=("$python" "$src/scripts/convert_scenario_table.py")
fixtures=$src/scenarios/tests/fixtures
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"${convert[@]}" scenarios "$fixtures/good_scenarios_30_columns.csv" > "$work/scenarios.csv"
cmp "$work/scenarios.csv" "$fixtures/good_scenarios.csv" || fail "the 30-column fixture converts otherwise: $(cat "$work/scenarios.csv")"

old_bugs='# entries
id,reference,op,path,kv_dtype,heads,q_len,backend,platform,repro,note
mi355_qlen6,aiter issue #2720,mla_decode,split_kv,,16,6,,MI355X,,rows collapse
fp8_gather,,kv_gather,,fp8_e4m3fn,2,,hip,,,"fp8, anywhere"
bs64,,mla_decode,,,,,,,bs=64;,64-token blocks'
new_bugs='# entries
id,reference,case,path,backend,platform,rank_heads,q_len,note
mi355_qlen6,aiter issue #2720,mla_decode:,split_kv,,MI355X,16,6,rows collapse
fp8_gather,,kv_gather:cache_dtype=fp8_e4m3fn;kv_heads=2,,hip,,,,"fp8, anywhere"
bs64,,mla_decode:bs=64,,,,,,64-token blocks'
printf '%s\n' "$old_bugs" > "$work/bugs.csv"
[ "$("${convert[@]}" known-bugs "$work/bugs.csv")" = "$new_bugs" ] || fail "known bugs: $("${convert[@]}" known-bugs "$work/bugs.csv")"

# Refusals: each names the file, line and column, exits 1 and writes no table.
refused() {  # kind, table text, expected message
  printf '%s\n' "$2" > "$work/bad.csv"
  local out rc=0
  out=$("${convert[@]}" "$1" "$work/bad.csv" 2>&1) || rc=$?
  [ $rc -eq 1 ] || fail "exit $rc for: $2"
  printf '%s\n' "$out" | grep -qF "$3" || fail "expected '$3', got: $out"
}
header=$(grep -v '^#' "$fixtures/good_scenarios_30_columns.csv" | head -2 | tail -1)
refused scenarios "$header
x,S1,r,m,t,mla_decode,f,comparison,128,,,,7,,,,,,,,nhd,,,,,n,,,," "bad.csv:2: column 'layout': op mla_decode has no such field"
refused scenarios "$header
x,S1,r,m,t,mha,f,comparison,,,,,7,,,,,,,,,,,,,n,,,," "bad.csv:2: column 'op': 'mha' is not one of"
refused scenarios "$header
x,S1,r,m,t,kv_gather,f,comparison,,,,,7,,,,,,,,nhd,yes,,,,n,,,," "bad.csv:2: column 'interleaved': 'yes'"
refused scenarios "$header
x,S1,r" "bad.csv:2: 3 cells, the header has 30"
refused scenarios "$(cat "$fixtures/good_scenarios.csv")" "bad.csv:3: the header is not the old schema's 30 columns"
refused known-bugs "id,reference,op,path,kv_dtype,heads,q_len,backend,platform,repro,note
a,,,,,,,,,bs=64;,any op" "bad.csv:2: column 'op': a known bug now names its op"
refused known-bugs "id,reference,op,path,kv_dtype,heads,q_len,backend,platform,repro,note
a,,mla_decode,,,,,,,kv_dtype=fp8;heads,substring" "bad.csv:2: column 'repro'"
echo "PASS: convert_scenario_table"
