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

# Layer arrows: a tree of three layers, where high/ includes low/ from a public header and mid/
# includes nothing. A table stating the arrow passes; one that leaves it out, or calls low/
# private to high/, fails at the row.
tree="$work/tree"
mkdir -p "$tree/low" "$tree/mid" "$tree/high/tests"
echo 'int low();' > "$tree/low/a.hpp"
echo '#include "low/a.hpp"' > "$tree/high/b.hpp"
echo '#include "high/b.hpp"' > "$tree/high/tests/t.cpp"
echo 'int mid();' > "$tree/mid/c.cpp"
layers() {
  printf '# Layers\n\n| folder | library | holds | depends on |\n|---|---|---|---|\n'
  printf '| low/ | `mlacheck_low` | a | standard library |\n'
  printf '| mid/ | `mlacheck_mid` | b | low |\n'
  printf '| high/ | `mlacheck_high` | c | %s |\n' "$1"
}
layers "mid" > "$work/layers_through.md"    # high -> mid -> low: stated through mid
layers "low" > "$work/layers_direct.md"
layers "standard library" > "$work/layers_missing.md"
layers "mid (low privately)" > "$work/layers_private.md"
for doc in layers_through layers_direct; do
  out=$("$python" "$src/scripts/check_doc_names.py" --root "$tree" "$work/$doc.md" 2>&1) || fail "$doc: $out"
done
rc=0
out=$("$python" "$src/scripts/check_doc_names.py" --root "$tree" "$work/layers_missing.md" 2>&1) || rc=$?
[ $rc -eq 1 ] || fail "exit $rc (expected 1) for an undeclared layer arrow: $out"
printf '%s\n' "$out" | grep -qF "layers_missing.md:7: layer high/ depends on low/, which its 'depends on' cell does not name" \
  || fail "the undeclared arrow high/ -> low/ was not reported at its row: $out"
printf '%s\n' "$out" | grep -q "tests/t.cpp" && fail "a tests/ folder's include was counted: $out"
rc=0
out=$("$python" "$src/scripts/check_doc_names.py" --root "$tree" "$work/layers_private.md" 2>&1) || rc=$?
[ $rc -eq 1 ] || fail "exit $rc (expected 1) for a private layer in a public header: $out"
printf '%s\n' "$out" | grep -qF "layers_private.md:7: layer high/ its public headers include low/, which its 'depends on' cell calls private: high/b.hpp" \
  || fail "the public include of a private layer was not reported: $out"

# Bad usage: a doc that does not exist.
rc=0
"${check[@]}" "$work/missing.md" > /dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "exit $rc (expected 2) for a missing doc"
echo "PASS: check_doc_names"
