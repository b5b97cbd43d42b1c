#!/usr/bin/env bash
# scripts/check_doc_names.py: the docs it is registered for name only paths and functions the tree
# has, and the check fails, naming the doc and line, on a doc that names a missing path and a
# missing function (so the PASS above is no check that cannot fail).
# Usage: check_doc_names_test.sh <source dir> <scratch dir> <python> <doc>...
set -euo pipefail
src=$1
work=$2
python=$3
shift 3
check=("$python" "$src/scripts/check_doc_names.py" --root "$src")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# The shipped docs.
docs=()
for doc in "$@"; do docs+=("$src/$doc"); done
"${check[@]}" "${docs[@]}" || fail "the docs name paths or functions the tree does not have (above)"

# A doc naming what exists passes: paths in backticks and plain, folders, a path without its
# extension, a path relative to a folder, a bare file name, a glob, and functions with parentheses.
cat > "$work/good.md" <<'DOC'
The registry (`harness/op_registry.hpp`, plan/case_settle) drives `prepare_case()` and
`make_backend(spec, device)`; cli/ and `scenarios/upstream.csv`, hip_backend/decode_path.hpp,
`mma_tile.hpp`, `wgmma_*.hpp`; `mlacheck run --out DIR/report.csv` writes elsewhere.
DOC
out=$("${check[@]}" "$work/good.md" 2>&1) || fail "a doc of existing names failed: $out"

# A doc naming a missing path (backticked and plain), a missing folder and a missing function
# (its name made here, so that no file of the tree holds it, this one included).
missing_function="settle_every""thing_$$"
cat > "$work/bad.md" <<DOC
# A doc

The driver (\`harness/no_such_driver.hpp\`) calls \`$missing_function()\` through
plan/no_such_step.cpp and cli/nowhere/, then \`prepare_case()\` as before.
DOC
rc=0
out=$("${check[@]}" "$work/bad.md" 2>&1) || rc=$?
[ $rc -eq 1 ] || fail "exit $rc (expected 1) for a doc with missing names: $out"
for expected in "bad.md:3: path 'harness/no_such_driver.hpp'" "bad.md:3: function '$missing_function()'" \
                "bad.md:4: path 'plan/no_such_step.cpp'" "bad.md:4: path 'cli/nowhere/'"; do
  printf '%s\n' "$out" | grep -qF "$expected" || fail "expected '$expected' in: $out"
done
printf '%s\n' "$out" | grep -q "prepare_case" && fail "an existing function was reported: $out"

# Bad usage: a doc that does not exist.
rc=0
"${check[@]}" "$work/missing.md" > /dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "exit $rc (expected 2) for a missing doc"
echo "PASS: check_doc_names"
