#!/usr/bin/env bash
# One sitting of GPU property cases (issue 12 item 4): the clean backend must pass --cases cases
# (default 100000) over every coverage bucket (dtype, path, head count, length, fill profile).
# Runs --jobs shards of mlacheck_gpu_properties at once on one GPU (default: one per CPU core, the
# host work being the cost), each with its own rapidcheck seed, sums the cases they checked and
# passed, merges their coverage counts (MLACHECK_GPU_COVERAGE_FILE), and fails when a shard failed,
# a bucket has no passed case, or fewer cases passed than asked. --max-size bounds rapidcheck's size
# (smaller caches and batches, so cases are cheap; 2% still hold a 16k-token request).
#
#   scripts/gpu-property-sitting.sh [--cases N] [--jobs J] [--max-size S] [--seed S]
#                                   [--bin PATH] [--out DIR] [--progress-interval S]
#   scripts/gpu-property-sitting.sh --merge DIR [--cases N]   # only the merge, of DIR's shard files
#
# While the shards run it prints progress on stderr in the lines of `mlacheck run`
# (cli/progress.hpp): cases passed over all shards of those asked, shards failed so far, cases/s and
# the time left at that rate; on a terminal one line rewritten every second, otherwise a plain
# line every --progress-interval seconds (default 30). The shards write their counts to
# MLACHECK_GPU_PROGRESS_FILE (properties/gpu/coverage.hpp).
#
# Exit: 0 the sitting passed; 1 it failed; 2 bad usage; 77 SKIPPED (no GPU: nothing was checked).
set -u

cases=100000
jobs=$(nproc 2>/dev/null || echo 16)
max_size=40
seed=1
bin=build/properties/gpu/mlacheck_gpu_properties
out=gpu-property-sitting
merge_only=""
progress_interval=30
# The properties a sitting counts: every one that holds cases against the oracle or each other
# (the refusal property runs nothing on the device).
filter='MlaDecodeOnGpu.*:KvGatherOnGpu.*:-MlaDecodeOnGpu.RefusalsAreSkippedNotPassed'
properties=5

usage() { echo "usage: $0 [--cases N] [--jobs J] [--max-size S] [--seed S] [--bin PATH] [--out DIR] [--progress-interval S] | --merge DIR [--cases N]" >&2; exit 2; }
positive() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "$1 $2: must be a positive integer" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --cases) positive "$1" "$2"; cases=$2 ;;
    --jobs) positive "$1" "$2"; jobs=$2 ;;
    --max-size) positive "$1" "$2"; max_size=$2 ;;
    --seed) positive "$1" "$2"; seed=$2 ;;
    --bin) bin=$2 ;;
    --out) out=$2 ;;
    --merge) merge_only=$2 ;;
    --progress-interval) positive "$1" "$2"; progress_interval=$2 ;;
    *) usage ;;
  esac
  shift 2
done

# Sums the shards' coverage files (shard-*.tsv in $1) and judges them against $2 cases.
merge() {
  local dir=$1 want=$2
  local files=("$dir"/shard-*.tsv)
  if [ ! -e "${files[0]}" ]; then
    echo "FAILED: no shard coverage file in $dir"
    return 1
  fi
  awk -F'\t' -v want="$want" '
    $1 == "cases" { cases[$2] += $3; total += $3; next }
    $1 == "bucket" {
      key = $2 "\t" $3
      passed[key] += $4; refused[key] += $5
      if ($6 == 1) expected[key] = 1
      next
    }
    { printf "FAILED: malformed line %d of %s: %s\n", FNR, FILENAME, $0; bad = 1 }
    END {
      for (p in cases) printf "  %-55s %8d cases passed\n", p, cases[p]
      holes = 0
      for (k in expected) {
        if (passed[k] == 0) {
          split(k, part, "\t")
          printf "  HOLE: %s: %s (%d refused)\n", part[1], part[2], refused[k]
          holes++
        }
      }
      n = 0; for (k in expected) n++
      printf "%d cases passed over %d expected buckets\n", total, n
      if (bad) exit 1
      if (n == 0) { print "FAILED: no property completed (nothing expected)"; exit 1 }
      if (holes > 0) { printf "FAILED: %d coverage hole(s)\n", holes; exit 1 }
      if (total < want) { printf "FAILED: %d cases passed, %d asked\n", total, want; exit 1 }
      printf "PASSED: %d cases, every bucket covered\n", total
    }' "${files[@]}"
}

# cli/progress.hpp's line: done total failed elapsed_s final(0|1).
progress_line() {
  awk -v d="$1" -v t="$2" -v f="$3" -v e="$4" -v final="$5" 'BEGIN {
    rate = e > 0 ? d / e : 0
    left = (rate > 0 && t > d) ? (t - d) / rate : 0
    printf "[%d/%d] %d failed, %.1f cases/s, %s %.0f s", d, t, f, rate, final ? "took" : "ETA", final ? e : left
  }'
}

# Cases passed so far over the shards' progress files, and the shards whose log shows a failure.
passed_so_far() { cat "$out"/shard-*.progress 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'; }
failed_so_far() { grep -lsE '^\[  FAILED  \]|Falsifiable' "$out"/shard-*.log | wc -l; }

# Prints progress until every shard ended (the caller then waits for their statuses).
watch_shards() {
  local terminal=0 last_print=$start now alive pid
  [ -t 2 ] && terminal=1
  while :; do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    sleep 1
    now=$(date +%s)
    if [ "$terminal" = 1 ]; then
      printf '\r%s\033[K' "$(progress_line "$(passed_so_far)" "$cases" "$(failed_so_far)" $((now - start)) 0)" >&2
    elif [ $((now - last_print)) -ge "$progress_interval" ]; then
      last_print=$now
      echo "$(progress_line "$(passed_so_far)" "$cases" "$(failed_so_far)" $((now - start)) 0)" >&2
    fi
  done
  [ "$terminal" = 1 ] && printf '\r\033[K' >&2
  echo "$(progress_line "$(passed_so_far)" "$cases" "$(failed_so_far)" $(($(date +%s) - start)) 1)" >&2
}

if [ -n "$merge_only" ]; then
  merge "$merge_only" "$cases"
  exit $?
fi

[ -x "$bin" ] || { echo "$bin: not an executable (build mlacheck_gpu_properties, or pass --bin)" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out"/shard-*.tsv "$out"/shard-*.log "$out"/shard-*.progress
per_shard=$(( (cases + jobs * properties - 1) / (jobs * properties) ))
echo "sitting: $jobs shards x $properties properties x $per_shard cases (max_size=$max_size), logs in $out/"
start=$(date +%s)
pids=()
for ((i = 0; i < jobs; i++)); do
  RC_PARAMS="seed=$((seed + i)) max_size=$max_size" MLACHECK_GPU_PROPERTY_CASES=$per_shard \
    MLACHECK_GPU_COVERAGE_FILE="$out/shard-$i.tsv" MLACHECK_GPU_PROGRESS_FILE="$out/shard-$i.progress" \
    "$bin" --gtest_filter="$filter" >"$out/shard-$i.log" 2>&1 &
  pids+=($!)
done
watch_shards
failed=0
for ((i = 0; i < jobs; i++)); do
  if ! wait "${pids[$i]}"; then
    echo "FAILED: shard $i (RC_PARAMS=\"seed=$((seed + i)) max_size=$max_size\"): see $out/shard-$i.log"
    grep -m 5 -E 'Falsifiable|FAILED:|RC_PARAMS="reproduce' "$out/shard-$i.log" | sed 's/^/    /'
    failed=1
  fi
done
echo "elapsed $(( $(date +%s) - start )) s"
# No GPU: every property reports SKIPPED with the reason and no case is counted.
if [ "$failed" = 0 ] && ! grep -qs $'^cases\t.*\t[1-9]' "$out"/shard-*.tsv && grep -qs '\[  SKIPPED \]' "$out/shard-0.log"; then
  echo "SKIPPED: nothing was checked: $(grep -m 1 -A 1 ': Skipped$' "$out/shard-0.log" | tail -n 1 | head -c 200)"
  exit 77
fi
merge "$out" "$cases" || failed=1
exit "$failed"
