#!/usr/bin/env bash
# The CMake package as a user installs and uses it (docs/install.md): `cmake --install` of this build
# into a fresh prefix; examples/cpu_plugin built out of the tree against find_package(mlacheck)
# (mlacheck::backend_abi) and a C program against mlacheck::capi; `<prefix>/bin/mlacheck run
# --backend` with that plugin from another folder; the installed Python package and tool agreeing
# on the version. Then bad input: a consumer asking for a version the package is not, and an
# install whose scenario table is gone, each a clear error naming it.
# Usage: package_cmake_test.sh <source dir> <build dir> <scratch dir> <python> <expected version>
set -euo pipefail
src=$1
build=$2
work=$3
python=$4
version=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/elsewhere"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
for file in bin/mlacheck include/mlacheck/backend_abi.h include/mlacheck/harness_api.h share/mlacheck/upstream.csv \
            share/mlacheck/known_bugs.csv share/doc/mlacheck/LICENSE lib/cmake/mlacheck/mlacheckConfig.cmake \
            lib/cmake/mlacheck/mlacheckConfigVersion.cmake; do
  [ -e "$prefix/$file" ] || fail "the install lacks $file"
done
cli_version=$("$prefix/bin/mlacheck" --version)
[ "$cli_version" = "mlacheck $version" ] || fail "installed mlacheck --version says '$cli_version', not 'mlacheck $version'"

# Out-of-tree consumers, configured from another folder against the prefix alone.
cd "$work/elsewhere"
configure() { cmake -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release; }
build_against_prefix() { configure "$1" "$2" && cmake --build "$2"; }
build_against_prefix "$src/examples/cpu_plugin" "$work/plugin" > "$work/plugin.log" 2>&1 ||
  { cat "$work/plugin.log"; fail "examples/cpu_plugin did not build against find_package(mlacheck)"; }
plugin=$work/plugin/libmlacheck_cpu_plugin.so
[ -f "$plugin" ] || fail "no $plugin"
build_against_prefix "$src/cmake/tests/package_consumer" "$work/consumer" > "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "the C API consumer did not build"; }
consumer=$("$work/consumer/package_consumer") || fail "the C API consumer failed: $consumer"
printf '%s\n' "$consumer" | grep -Eq '^harness API 1, [1-9][0-9]* scenarios$' || fail "the C API consumer printed: $consumer"
echo "C API consumer: $consumer"

# A version the package is not: CMake's own refusal, naming the package's version.
mkdir -p "$work/too_new"
sed 's/find_package(mlacheck 0.1 REQUIRED CONFIG)/find_package(mlacheck 99.0 REQUIRED CONFIG)/' \
  "$src/cmake/tests/package_consumer/CMakeLists.txt" > "$work/too_new/CMakeLists.txt"
cp "$src/cmake/tests/package_consumer/package_consumer.c" "$work/too_new/"
if out=$(configure "$work/too_new" "$work/too_new/build" 2>&1); then fail "find_package(mlacheck 99.0) was accepted"; fi
printf '%s\n' "$out" | grep -q "compatible with requested version \"99.0\"" || fail "no clear version refusal: $out"
printf '%s\n' "$out" | grep -q "version: $version" || fail "the refusal does not name version $version: $out"

# The installed Python package loads the installed library and reads the installed tables.
python_dir=$(find "$prefix/lib" -path '*-packages/mlacheck/__init__.py' -printf '%h\n' | head -1)
[ -n "$python_dir" ] || fail "the install has no Python package"
py=$(env -u MLACHECK_CAPI PYTHONPATH="$(dirname "$python_dir")" "$python" -c \
  'import mlacheck; print(mlacheck.__version__, len(mlacheck.plan("scenarios")), mlacheck.library_path())')
read -r py_version py_scenarios py_library <<< "$py"
[ "$py_version" = "$version" ] || fail "the installed mlacheck.__version__ is $py_version"
[ "$py_scenarios" -gt 0 ] || fail "the installed Python package found no scenarios"
case "$py_library" in "$prefix/"*) ;; *) fail "the installed Python package loaded $py_library" ;; esac
# Its dist-info: the distribution's version and entry points as pip would have written them.
points=$(env -u MLACHECK_CAPI PYTHONPATH="$(dirname "$python_dir")" "$python" -c '
import importlib.metadata as m
d = m.distribution("mlacheck")
print(d.version, *sorted(f"{e.group}={e.value}" for e in d.entry_points))')
[ "$points" = "$version console_scripts=mlacheck.cli._main:main pytest11=mlacheck.pytest_plugin" ] ||
  fail "the installed dist-info says: $points"

# The main job's sources on the plugin, from a folder that is neither the tree nor the prefix: every
# scenario row and curated case, the covering array at strength 1 and 8 property cases (what is
# tested here is the installed tool and its tables, the factor tables included; examples.cpu_run
# passes the full default plan on the same plugin): examples/host_tests.plan.
start=$SECONDS
"$prefix/bin/mlacheck" run --backend "$plugin" --plan "$src/examples/host_tests.plan" --out "$work/elsewhere/report" > "$work/run.log" 2>&1 ||
  { tail -30 "$work/run.log"; fail "<prefix>/bin/mlacheck run --backend failed"; }
echo "installed mlacheck run --backend: $(grep -c . "$work/elsewhere/report/report.csv") report lines in $((SECONDS - start)) s"
listed=$("$prefix/bin/mlacheck" scenarios --list)
listed=${listed%%$'\n'*}
case "$listed" in *" scenarios from $prefix/share/mlacheck/upstream.csv; known bugs from $prefix/share/mlacheck/known_bugs.csv") ;;
  *) fail "the installed tool reads its tables from elsewhere: $listed" ;; esac
# A row per scenario of the table, and beside some the e4m3fn twin of a clean fnuz row (id <row>-fn).
scenario_rows=$(grep '^scenario\.' "$work/elsewhere/report/report.csv" | grep -vc '^scenario\.[^,]*-fn,' || true)
[ "$scenario_rows" -eq "${listed%% *}" ] || fail "the installed run has $scenario_rows scenario rows, not the table's ${listed%% *}"
grep -q '^scenario\.[^,]*-fn,' "$work/elsewhere/report/report.csv" || fail "the installed run has no e4m3fn twin of a fnuz scenario row"
grep -q '^cover-0,' "$work/elsewhere/report/report.csv" || fail "the installed run has no covering-array row (its factor tables?)"
for report in report.csv junit.xml report.html; do [ -s "$work/elsewhere/report/$report" ] || fail "no $report"; done

# A damaged install: the tool stops naming the missing table, before any case runs.
mv "$prefix/share/mlacheck/upstream.csv" "$work/upstream.csv.moved"
set +e
out=$("$prefix/bin/mlacheck" run --backend "$plugin" --out "$work/elsewhere/damaged" 2>&1)
rc=$?
set -e
if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "$prefix/share/mlacheck/upstream.csv is missing"; then
  fail "an install without its scenario table must exit 2 naming it: rc $rc: $out"
fi
echo "PASS: the CMake package installs, builds consumers and runs from its prefix"
