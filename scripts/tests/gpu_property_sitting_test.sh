#!/usr/bin/env bash
# scripts/gpu-property-sitting.sh without a GPU: its shard launch, aggregation and verdicts, driven
# by a fake properties binary whose shards write chosen coverage counts, and the real binary's
# SKIPPED when given. Usage: gpu_property_sitting_test.sh SOURCE_DIR WORK_DIR [REAL_BINARY]
set -u
src=$1 work=$2 real=${3:-}
script="$src/scripts/gpu-property-sitting.sh"
rm -rf "$work" && mkdir -p "$work"
fails=0
check() {  # name, expected exit status, expected output pattern, command...
  local name=$1 want=$2 pattern=$3
  shift 3
  local got output
  output=$("$@" 2>&1)
  got=$?
  if [ "$got" != "$want" ] || ! grep -qE "$pattern" <<<"$output"; then
    echo "FAIL: $name: exit $got (want $want), output lacks /$pattern/:"
    sed 's/^/    /' <<<"$output"
    fails=$((fails + 1))
  fi
}

# A fake binary: shard with seed s writes FAKE_MODE's counts. Every shard passes 300 cases of P
# (bucket a) and 100 of Q; only seed 2 covers P's bucket b, so the union covers it but a shard
# alone does not.
fake="$work/fake_properties"
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
seed=$(sed -E 's/.*seed=([0-9]+).*/\1/' <<<"$RC_PARAMS")
case "$FAKE_MODE" in
  skip) echo "[  SKIPPED ] MlaDecodeOnGpu.MatchesOracle"; : >"$MLACHECK_GPU_COVERAGE_FILE"; exit 0 ;;
  fail) if [ "$seed" = 2 ]; then echo "Falsifiable after 3 tests"; exit 1; fi ;;
esac
# Progress as a shard writes it: half its cases passed, a pause (FAKE_PAUSE s), then all of them.
echo 150 >"$MLACHECK_GPU_PROGRESS_FILE"
sleep "${FAKE_PAUSE:-0}"
echo 400 >"$MLACHECK_GPU_PROGRESS_FILE"
b=0; [ "$seed" = 2 ] && b=5
[ "$FAKE_MODE" = hole ] && b=0
printf 'cases\tP\t300\nbucket\tP\ta\t300\t0\t1\nbucket\tP\tb\t%d\t2\t1\ncases\tQ\t100\nbucket\tQ\tc\t100\t0\t1\n' "$b" \
  >"$MLACHECK_GPU_COVERAGE_FILE"
echo "cases $MLACHECK_GPU_PROPERTY_CASES"
FAKE
chmod +x "$fake"

check "two shards sum and cover" 0 "PASSED: 800 cases" \
  env FAKE_MODE=pass "$script" --bin "$fake" --jobs 2 --cases 800 --out "$work/pass"
grep -q "cases 80" "$work/pass/shard-0.log" || { echo "FAIL: per-shard case count not 800/(2*5)=80"; fails=$((fails + 1)); }
# Progress off a terminal: plain lines at the interval while the shards run, then the time taken.
progress=$(env FAKE_MODE=pass FAKE_PAUSE=3 "$script" --bin "$fake" --jobs 2 --cases 800 --out "$work/progress" \
  --progress-interval 1 2>&1 >/dev/null)
if ! grep -qE '^\[300/800\] 0 failed, [0-9.]+ cases/s, ETA [0-9]+ s$' <<<"$progress" ||
  ! grep -qE '^\[800/800\] 0 failed, [0-9.]+ cases/s, took [0-9]+ s$' <<<"$progress" || grep -q $'\r' <<<"$progress"; then
  echo "FAIL: progress lines:"; sed 's/^/    /' <<<"$progress"; fails=$((fails + 1))
fi
check "a bucket no shard covered is a hole" 1 "HOLE: P: b \(4 refused\)" \
  env FAKE_MODE=hole "$script" --bin "$fake" --jobs 2 --cases 800 --out "$work/hole"
check "fewer cases than asked" 1 "FAILED: 800 cases passed, 900 asked" \
  env FAKE_MODE=pass "$script" --bin "$fake" --jobs 2 --cases 900 --out "$work/few"
check "a failing shard fails the sitting" 1 "FAILED: shard 1 .*seed=2" \
  env FAKE_MODE=fail "$script" --bin "$fake" --jobs 2 --cases 800 --out "$work/fail"
check "no GPU is SKIPPED, not passed" 77 "SKIPPED: nothing was checked" \
  env FAKE_MODE=skip "$script" --bin "$fake" --jobs 2 --cases 800 --out "$work/skip"
check "merge alone" 0 "PASSED: 800 cases" "$script" --merge "$work/pass" --cases 800
printf 'junk\n' >"$work/pass/shard-9.tsv"
check "a malformed counts file fails" 1 "malformed line 1" "$script" --merge "$work/pass" --cases 800
check "bad usage" 2 "must be a positive integer" "$script" --cases zero
if [ -n "$real" ]; then
  # The real binary on a machine without a GPU: every property SKIPPED, the sitting too.
  check "the real binary without a GPU" 77 "SKIPPED: nothing was checked: no .*device" \
    "$script" --bin "$real" --jobs 2 --cases 100 --out "$work/real"
fi
[ "$fails" = 0 ] && echo "PASS: gpu-property-sitting.sh" || exit 1
