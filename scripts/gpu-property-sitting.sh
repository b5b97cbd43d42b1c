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
#                                   [--bin PATH] [--out DIR]
#   scripts/gpu-property-sitting.sh --merge DIR [--cases N]   # only the merge, of DIR's shard files
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
# The properties a sitting counts: every one that holds cases against the oracle or each other
# (the refusal property runs nothing on the device).
filter='MlaDecodeOnGpu.*:KvGatherOnGpu.*:-MlaDecodeOnGpu.RefusalsAreSkippedNotPassed'
properties=5

usage() { echo "usage: $0 [--cases N] [--jobs J] [--max-size S] [--seed S] [--bin PATH] [--out DIR] | --merge DIR [--cases N]" >&2; exit 2; }
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

if [ -n "$merge_only" ]; then
  merge "$merge_only" "$cases"
  exit $?
fi

[ -x "$bin" ] || { echo "$bin: not an executable (build mlacheck_gpu_properties, or pass --bin)" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out"/shard-*.tsv "$out"/shard-*.log
per_shard=$(( (cases + jobs * properties - 1) / (jobs * properties) ))
echo "sitting: $jobs shards x $properties properties x $per_shard cases (max_size=$max_size), logs in $out/"
start=$(date +%s)
pids=()
for ((i = 0; i < jobs; i++)); do
  RC_PARAMS="seed=$((seed + i)) max_size=$max_size" MLACHECK_GPU_PROPERTY_CASES=$per_shard \
    MLACHECK_GPU_COVERAGE_FILE="$out/shard-$i.tsv" \
    "$bin" --gtest_filter="$filter" >"$out/shard-$i.log" 2>&1 &
  pids+=($!)
done
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
