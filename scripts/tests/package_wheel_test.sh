#!/usr/bin/env bash
# The Python wheel as a kernel repository uses it (docs/install.md): built from the tracked files of
# the tree with Debian's packages only (python3 -m build --wheel --no-isolation, then pip install
# --no-build-isolation . over it), installed into a fresh virtual environment that sees the
# system's NumPy and torch, and used from a folder outside the tree with no PYTHONPATH and no -p:
# the PyTorch example's own tests (those that reach every entry of the package they use: plan, run,
# check, shrink, decode sequences; the example's heavy sweeps run against the build tree in
# torch_example_tests, and would only repeat the same numbers here), its scenario cases through the pytest11 entry point, and
# -m "not mlacheck" deselecting them. Then bad input: a backend spec that does not import, and a
# wheel whose scenario table is gone, each a clear error naming it.
# Usage: package_wheel_test.sh <source dir> <scratch dir> <python> <expected version>
# Exit 77 (SKIPPED, with the reason) when the build, venv or pip module is missing.
set -euo pipefail
src=$1
work=$2
python=$3
version=$4
fail() { echo "FAIL: $*"; exit 1; }
for module in build venv pip setuptools wheel; do
  "$python" -c "import $module" 2> /dev/null || { echo "SKIP: $python has no $module module (scripts/install-deps.sh installs it)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/src"

# Only what a clone holds: a file the wheel needs but git does not track fails here.
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
  tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C "$work/src"
fi

start=$SECONDS
(cd "$work/src" && "$python" -m build --wheel --no-isolation --outdir "$work/dist") > "$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; fail "python3 -m build --wheel failed (log above)"; }
echo "wheel built in $((SECONDS - start)) s"
# Tagged with the glibc level the built library needs (scripts/glibc_needs.py), so that pip
# refuses the wheel where the library would not load.
wheels=("$work"/dist/mlacheck-"$version"-py3-none-manylinux_*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
  fail "expected one mlacheck-$version-py3-none-manylinux_*.whl: $(ls "$work/dist")"
fi
wheel=${wheels[0]}
"$python" -m zipfile -e "$wheel" "$work/tagged"
level=$("$python" "$work/src/scripts/glibc_needs.py" "$work/tagged/mlacheck/libmlacheck_capi.so" | sed 's/.*needs glibc //')
case "$wheel" in *"-manylinux_${level/./_}_"*) ;; *) fail "the wheel's tag does not say glibc $level: $wheel" ;; esac
"$python" "$work/src/scripts/glibc_needs.py" "$work/tagged/mlacheck/libmlacheck_capi.so" --max 2.35 ||
  fail "the wheel's library needs a glibc newer than 2.35 (Ubuntu 22.04, the ROCm images' base)"
listing=$("$python" -m zipfile -l "$wheel")
for member in mlacheck/libmlacheck_capi.so mlacheck/data/upstream.csv mlacheck/data/known_bugs.csv \
              mlacheck/_paths.py mlacheck/_version.py mlacheck/pytest_plugin/__init__.py "mlacheck-$version.dist-info/LICENSE" \
              "mlacheck-$version.dist-info/entry_points.txt"; do
  printf '%s\n' "$listing" | grep -q " *$member " || printf '%s\n' "$listing" | grep -q "^$member " ||
    fail "the wheel lacks $member"
done
metadata=$("$python" -m zipfile -e "$wheel" "$work/unpacked" && cat "$work/unpacked/mlacheck-$version.dist-info/METADATA")
printf '%s\n' "$metadata" | grep -qx "License: Apache-2.0" || fail "METADATA names no Apache-2.0 license"
printf '%s\n' "$metadata" | grep -qx "Version: $version" || fail "METADATA's version is not $version"

"$python" -m venv --system-site-packages "$work/venv"
venv_python=$work/venv/bin/python
"$venv_python" -m pip install --quiet --no-index --no-build-isolation "$wheel" || fail "pip install of the wheel failed"

# A kernel repository: the example's folder copied out of the tree, run from there.
cp -r "$src/examples/torch_decode" "$work/repo"
cd "$work/repo"
unset PYTHONPATH MLACHECK_CAPI
installed=$("$venv_python" -c 'import mlacheck; print(mlacheck.__version__, mlacheck.library_path())')
[ "${installed%% *}" = "$version" ] || fail "mlacheck.__version__ is ${installed%% *}, the project's version is $version"
case "${installed#* }" in "$work/venv/"*) ;; *) fail "the venv's mlacheck loaded ${installed#* }, not its own library" ;; esac

# The command line the repro lines name: python -m mlacheck and the console script, from the venv.
"$venv_python" -m mlacheck plan --plan properties --size 3 | grep -c . | grep -qx 3 ||
  fail "python -m mlacheck plan did not list the 3 cases"
[ -x "$work/venv/bin/mlacheck" ] || fail "the wheel installed no mlacheck console script"
"$work/venv/bin/mlacheck" run --backend torch_mla_decode:TorchMlaBackend --backend-path "$PWD" --plan properties --size 4 --no-progress \
  > "$work/cli.log" 2>&1 || { tail -20 "$work/cli.log"; fail "the mlacheck console script's run failed"; }
grep -q "^4 cases: " "$work/cli.log" || fail "mlacheck run printed no summary of 4 cases: $(tail -3 "$work/cli.log")"

example_tests="shrinks_a_failing or right_below_4gib or kept_from_step_0 or without_cuda_is_a_skipped_row"
"$venv_python" -m pytest -p no:cacheprovider -q -rs test_torch_decode.py -k "$example_tests" > "$work/example.log" 2>&1 ||
  { tail -40 "$work/example.log"; fail "the example's tests failed through the installed wheel"; }
summary=$(tail -1 "$work/example.log")
echo "example's tests: $summary"
printf '%s\n' "$summary" | grep -Eq '(^| )[4-9] passed' || fail "expected the example's selected tests to run and pass: $summary"

# The repository's own test beside mlacheck's items: the items come from the entry point alone.
printf 'import torch_mla_decode\n\n\ndef test_the_repository_own_test():\n    assert callable(torch_mla_decode.decode)\n' \
  > test_repository_own.py
plugin_run=("$venv_python" -m pytest -p no:cacheprovider -q -rs --mlacheck-backend torch_mla_decode:TorchMlaBackend
            --mlacheck-plan scenarios test_repository_own.py)
"${plugin_run[@]}" > "$work/plugin.log" 2>&1 || { tail -40 "$work/plugin.log"; fail "the scenario items failed through the entry point"; }
summary=$(tail -1 "$work/plugin.log")
echo "entry point: $summary"
passed=$(printf '%s\n' "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || true)
[ "${passed:-0}" -ge 20 ] || fail "expected the scenario cases to run as items through the entry point: $summary"

"${plugin_run[@]}" -m "not mlacheck" > "$work/deselected.log" 2>&1 ||
  { tail -40 "$work/deselected.log"; fail "-m 'not mlacheck' run failed"; }
summary=$(tail -1 "$work/deselected.log")
echo "-m 'not mlacheck': $summary"
printf '%s\n' "$summary" | grep -Eq '(^| )1 passed' || fail "-m 'not mlacheck' must leave the repository's own test alone: $summary"
deselected=$(printf '%s\n' "$summary" | grep -Eo '[0-9]+ deselected' | grep -Eo '[0-9]+' || true)
[ "${deselected:-0}" -ge "$passed" ] || fail "-m 'not mlacheck' must deselect every mlacheck item: $summary"

# pip install . from the clone, over the wheel (its CMake build is the one above, reused).
(cd "$work/src" && "$venv_python" -m pip install --quiet --no-index --no-build-isolation .) > "$work/pip.log" 2>&1 ||
  { tail -40 "$work/pip.log"; fail "pip install --no-build-isolation . failed"; }
[ "$("$venv_python" -c 'import mlacheck; print(mlacheck.__version__)')" = "$version" ] || fail "pip install . gave another version"

# Bad input: a backend that does not import; a wheel whose scenario table is gone.
set +e
out=$("$venv_python" -m pytest -p no:cacheprovider -q --mlacheck-backend no_such_module:decode 2>&1)
rc=$?
set -e
if [ $rc -ne 4 ] || ! printf '%s\n' "$out" | grep -q "cannot import 'no_such_module'"; then
  fail "a backend that does not import must be a usage error (4) naming it: rc $rc: $out"
fi
table=$("$venv_python" -c 'import mlacheck, os; print(os.path.join(os.path.dirname(mlacheck.__file__), "data", "upstream.csv"))')
rm "$table"
set +e
out=$("$venv_python" -c 'import mlacheck; mlacheck.plan("default")' 2>&1)
rc=$?
set -e
if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "damaged: its package data .*upstream.csv is missing"; then
  fail "a wheel without its scenario table must stop naming it: $out"
fi
# A library that cannot be built fails the wheel with the reason, never a wheel without it.
set +e
out=$(cd "$work/src" && MLACHECK_CMAKE_ARGS="-DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON" \
      "$python" -m build --wheel --no-isolation --outdir "$work/dist-broken" 2>&1)
rc=$?
set -e
if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "mlacheck wheel: cannot configure libmlacheck_capi.so"; then
  fail "a wheel whose library cannot be built must fail saying so: rc $rc: $(printf '%s\n' "$out" | tail -5)"
fi
if ls "$work/dist-broken"/*.whl > /dev/null 2>&1; then fail "a wheel was written without its library"; fi
echo "PASS: the wheel builds, installs and runs outside the tree"
