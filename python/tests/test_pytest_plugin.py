"""The pytest plugin's --mlacheck-backend items, run as a kernel repository runs them (in a fresh
pytest process): one item per backend case, markers, failures with their repro lines, loading."""

from __future__ import annotations

import csv
import os
import shlex
import subprocess
import sys

import pytest

import mlacheck
from conftest import BF16_MTP

PROPERTIES_8 = ("--mlacheck-plan", "properties", "--mlacheck-size", "8", "--mlacheck-seed", "8")


def collected(result) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(" ")]


def backend_case_ids(plan) -> list[str]:
    return [case.id for case in plan.backend_cases()]


def test_one_item_per_backend_case_named_by_id(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "--collect-only", "-q")
    expected = backend_case_ids(mlacheck.plan("properties", size=8, seed=8))
    assert 0 < len(expected) < 8  # the sweep holds a kv_gather case, which is no item
    assert collected(result) == [f"mlacheck::{i}" for i in expected]


def test_the_summary_counts_the_items_collected_and_selected(plugin_run):
    plugin_run.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "-m", "not mlacheck")
    result.stdout.fnmatch_lines(["collected 8 items / 7 deselected / 1 selected"])
    result.assert_outcomes(passed=1, deselected=7)


def test_oracle_self_checks_and_kv_gather_cases_are_no_items(plugin_run):
    plan = mlacheck.plan("default")
    others = [case.id for case in plan if not case.runs_backend]
    assert {case.kind for case in plan if not case.runs_backend} == {"oracle_self_check", "kv_gather"}
    result = plugin_run("--mlacheck-backend", "backends:decode", "--collect-only", "-q")
    items = collected(result)
    assert items == [f"mlacheck::{i}" for i in backend_case_ids(plan)]
    assert not set(items) & {f"mlacheck::{i}" for i in others}


def test_the_default_plan_collects_the_same_items_in_every_process(plugin_run):
    # pytest-xdist workers collect separately and must agree; plans depend on their options only.
    runs = [plugin_run("--mlacheck-backend", "backends:decode", "--collect-only", "-q") for _ in range(2)]
    assert collected(runs[0]) == collected(runs[1]) and len(collected(runs[0])) > 100


def test_passing_backend_passes_and_writes_the_report(plugin_run, tmp_path):
    report = tmp_path / "report"
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "--mlacheck-report", str(report))
    result.assert_outcomes(passed=7)
    assert (report / "report.csv").read_text().count("\n") == 1 + 7
    assert (report / "junit.xml").is_file() and (report / "report.html").is_file()


def test_markers_select_and_deselect_the_cases(plugin_run):
    plugin_run.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    base = ("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "--strict-markers", "--collect-only", "-q")
    for expression, expected in (
        ("not mlacheck", ["test_plain.py::test_plain"]),
        ("mlacheck", [f"mlacheck::sweep-{i}" for i in range(7)]),
        ("mlacheck_mla_decode", [f"mlacheck::sweep-{i}" for i in range(7)]),
        ("mlacheck_plan_properties", [f"mlacheck::sweep-{i}" for i in range(7)]),
        ("mlacheck_plan_scenarios", []),
    ):
        result = plugin_run(*base, "-m", expression)
        assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), result.stderr.str()
        assert collected(result) == expected, expression
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-case", BF16_MTP, "-m",
                        "mlacheck_plan_repro", "--collect-only", "-q")
    assert collected(result) == ["mlacheck::bf16-mtp"]


def test_every_marker_is_registered(plugin_run):
    result = plugin_run("--markers")
    for marker in ("mlacheck", "mlacheck_mla_decode", "mlacheck_kv_gather", "mlacheck_oracle_self_check",
                   "mlacheck_plan_default", "mlacheck_plan_scenarios", "mlacheck_plan_properties",
                   "mlacheck_plan_repro"):
        result.stdout.fnmatch_lines([f"@pytest.mark.{marker}: *"])


def test_failure_shows_the_reason_errors_and_both_repro_lines(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP)
    result.assert_outcomes(failed=1)
    repro = mlacheck.plan(repro=BF16_MTP)[0].repro
    folder = str(plugin_run.pytester.path.resolve())
    rerun = shlex.join([sys.executable, "-m", "pytest", "-p", "mlacheck.pytest_plugin", "--mlacheck-backend",
                        "backends:off_by_one", "--mlacheck-backend-path", folder, "--mlacheck-case", repro,
                        "mlacheck::bf16-mtp"])
    command = shlex.join([sys.executable, "-m", "mlacheck", "run", "--backend", "backends:off_by_one", "--case", repro])
    result.stdout.fnmatch_lines(
        [
            "*FAILED bf16-mtp: O: * of 5120 elements outside abs*",
            "*O: max_abs_err=*",
            f"*repro: {command}",
            f"*repro: {rerun}",
        ]
    )


def test_the_printed_pytest_line_reruns_the_backend_on_the_case(plugin_run):
    plugin_run.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    plan = mlacheck.plan("properties", size=8, seed=8)
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", *PROPERTIES_8, "-k", "sweep-3")
    result.assert_outcomes(failed=1, deselected=7)
    [line] = [line for line in result.outlines if " -m pytest " in line]
    words = shlex.split(line.split("repro: ", 1)[1])
    assert words[:3] == [sys.executable, "-m", "pytest"]
    assert words[-3:] == ["--mlacheck-case", plan[3].repro, "mlacheck::sweep-3"]
    # From another folder, with only mlacheck itself on PYTHONPATH: the line finds the backend
    # (--mlacheck-backend-path) and runs that one case, none of the suite's own tests.
    elsewhere = plugin_run.pytester.path.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "test_other.py").write_text("def test_other():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mlacheck.__file__)))
    again = subprocess.run([*words, "-p", "no:cacheprovider"], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "1 failed in" in again.stdout and "passed" not in again.stdout.splitlines()[-1]
    assert "FAILED sweep-3: O: " in again.stdout


def test_errored_rows_fail_with_the_exception(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:broken", "--mlacheck-case", BF16_MTP)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ERRORED bf16-mtp: backend raised RuntimeError: kernel launch failed (at *"])


def test_a_class_is_instantiated_and_its_refusals_skip(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:Picky", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "12", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0
    assert outcomes["passed"] >= 1
    result.stdout.fnmatch_lines(["*SKIPPED*: only one request*"])


def test_k_selects_cases(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "-k", "sweep-3 or sweep-4")
    result.assert_outcomes(passed=2, deselected=5)


def test_without_a_backend_the_plugin_adds_nothing(plugin_run):
    result = plugin_run("--collect-only", "-q")
    assert not any(line.startswith("mlacheck::") for line in result.outlines)


def test_a_suite_without_cases_never_loads_the_library(plugin_run, monkeypatch):
    # Auto-loaded in every session of an interpreter with mlacheck installed, the plugin must not
    # even open libmlacheck_capi.so where no test asks for a case.
    monkeypatch.setenv("MLACHECK_CAPI", "/nonexistent/libmlacheck_capi.so")
    plugin_run.pytester.makepyfile(test_plain="import pytest\n@pytest.mark.parametrize('x', [1, 2])\n"
                                              "def test_plain(x):\n    assert x\n")
    result = plugin_run("--strict-markers")
    result.assert_outcomes(passed=2)


def test_a_bad_backend_spec_is_a_usage_error(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected MODULE:ATTRIBUTE*"])
    result = plugin_run("--mlacheck-backend", "no_such_module:decode")
    result.stderr.fnmatch_lines(["*cannot import 'no_such_module'*"])
    result = plugin_run("--mlacheck-backend", "backends:nothing")
    result.stderr.fnmatch_lines(["*backends has no attribute 'nothing'*"])


def test_a_bad_repro_is_a_usage_error(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-case", "mla_decode:heads=oops")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: mlacheck plan: *heads*"])


def test_an_entry_point_and_minus_p_load_the_plugin_once(plugin_run):
    # A pytest11 entry point named like the module (as an installed mlacheck declares it) and
    # `-p mlacheck.pytest_plugin` name one plugin: pytest registers it once.
    dist = plugin_run.pytester.mkdir("mlacheck_entry-0.dist-info")
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mlacheck-entry\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\nmlacheck.pytest_plugin = mlacheck.pytest_plugin\n")
    args = ("--mlacheck-backend", "backends:decode", "--mlacheck-case", BF16_MTP)
    for result in (
        plugin_run(*args),  # -p and the entry point
        plugin_run.pytester.runpytest_subprocess("-p", "no:cacheprovider", *args),  # the entry point alone
    ):
        result.assert_outcomes(passed=1)


def test_mlacheck_shrink_shrinks_a_failing_item_and_reports_both_repros(plugin_run, tmp_path):
    report = tmp_path / "report"
    result = plugin_run(
        "--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP, "--mlacheck-shrink",
        "--mlacheck-report", str(report),
    )
    result.assert_outcomes(failed=1)
    [line] = [line for line in result.outlines if line.startswith("shrunk (")]
    assert line.startswith("shrunk (minimal after ") and ": FAILED: O: " in line
    [shrunk_line] = [line for line in result.outlines if line.startswith("  shrunk: ") and " -m mlacheck run " in line]
    shrunk = shlex.split(shrunk_line)[-1]
    assert mlacheck.plan(repro=shrunk)[0].problem.batch == 1
    [rerun] = [line for line in result.outlines if line.startswith("  shrunk: ") and " -m pytest " in line]
    words = shlex.split(rerun.split("shrunk: ", 1)[1])
    assert words[-3:-1] == ["--mlacheck-case", shrunk]
    again = plugin_run.pytester.runpytest_subprocess(*words[3:], "-p", "no:cacheprovider")
    again.assert_outcomes(failed=1)  # the shrunk case fails on its own
    # The row keeps the original repro and adds the shrunk one.
    with open(report / "report.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    assert row["id"] == "bf16-mtp" and row["repro"].startswith("mla_decode:name=bf16-mtp;heads=16;")
    assert row["shrunk_repro"] == shrunk


def test_without_mlacheck_shrink_nothing_is_shrunk(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP)
    result.assert_outcomes(failed=1)
    assert not [line for line in result.outlines if line.lstrip().startswith("shrunk")]


MARKING_CONFTEST = """
import pytest

def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.name == "sweep-1":
            item.add_marker(pytest.mark.skip(reason="kernel has no such path yet"))
        elif item.name == "sweep-3":
            item.add_marker(pytest.mark.xfail(reason="known rounding gap", strict=True))
        elif item.name == "sweep-4":
            item.add_marker(pytest.mark.slow_kernel)
"""


def test_markers_added_in_a_conftest_work_and_rs_names_the_case(plugin_run):
    plugin_run.pytester.makeconftest(MARKING_CONFTEST)
    plugin_run.pytester.makeini("[pytest]\nmarkers = slow_kernel: a custom marker\n")
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", *PROPERTIES_8, "-k", "sweep-1 or sweep-3",
                        "-rsx")
    result.assert_outcomes(skipped=1, xfailed=1, deselected=5)
    result.stdout.fnmatch_lines(["SKIPPED [[]1] mlacheck::sweep-1: kernel has no such path yet",
                                 "XFAIL mlacheck::sweep-3*known rounding gap*"])
    assert "INTERNALERROR" not in result.stdout.str()
    custom = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "-m", "slow_kernel")
    custom.assert_outcomes(passed=1, deselected=6)


def test_a_refused_case_is_reported_at_the_case_by_rs(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:Picky", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "12", "-rs")
    skipped = [line for line in result.outlines if line.startswith("SKIPPED [")]
    assert skipped and all(" mlacheck::" in line and "pytest_plugin" not in line for line in skipped)


def test_a_node_id_argument_selects_one_case_and_no_test_file(plugin_run):
    plugin_run.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "mlacheck::sweep-4", "--collect-only", "-q")
    assert collected(result) == ["mlacheck::sweep-4"]
    by_option = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "--mlacheck-case-id", "sweep-4")
    by_option.assert_outcomes(passed=2)  # sweep-4 and the suite's test_plain
    unknown = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "mlacheck::sweep-99")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*no backend case of * has the id sweep-99*"])


def test_known_bugs_option_settles_a_matching_failure(plugin_run, tmp_path):
    from test_settle import known_bug_table

    without = plugin_run("--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP,
                         "--mlacheck-known-bugs", "")
    without.assert_outcomes(failed=1)
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP,
                        "--mlacheck-known-bugs", known_bug_table(tmp_path), "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1] mlacheck::bf16-mtp: *known bug py-bug (issue 9)*"])


def test_a_case_skipped_by_a_conftest_marker_never_reaches_the_workers(plugin_run, tmp_path):
    # The scheduler starts every selected item's case ahead in the worker processes: an item a
    # conftest marks skip (or xfail(run=False)) must not have its case run there, only reported.
    plugin_run.pytester.makeconftest(MARKING_CONFTEST + """
        elif item.name == "sweep-2":
            item.add_marker(pytest.mark.xfail(reason="not even tried", run=False))
""")
    plugin_run.pytester.makeini("[pytest]\nmarkers = slow_kernel: a custom marker\n")
    report = tmp_path / "report"
    result = plugin_run("--mlacheck-backend", "backends:decode", *PROPERTIES_8, "-k", "sweep-1 or sweep-2 or sweep-4",
                        "--mlacheck-report", str(report))
    result.assert_outcomes(skipped=1, xfailed=1, passed=1, deselected=4)
    with open(report / "report.csv", newline="") as f:
        ran = sorted(row["id"] for row in csv.DictReader(f))
    assert ran == ["sweep-4"]


def test_the_tier_option_selects_the_tiers_cases(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-tier", "smoke", "--collect-only", "-q")
    assert collected(result) == [f"mlacheck::{i}" for i in backend_case_ids(mlacheck.plan(tier="smoke"))]
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-tier", "huge", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: mlacheck plan: *tier 'huge' is not one of smoke, pre-merge, nightly*"])


def test_the_plan_file_option_runs_its_cases_and_a_bad_line_is_a_usage_error(plugin_run):
    plugin_run.pytester.makefile(".plan", mine="properties seed=2 size=4\n")
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan-file", "mine.plan")
    expected = backend_case_ids(mlacheck.plan("properties", seed=2, size=4))
    result.assert_outcomes(passed=len(expected))
    plugin_run.pytester.makefile(".plan", bad="scenarios\nfrobnicate\n")
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan-file", "bad.plan")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: mlacheck plan: *bad.plan:2: 'frobnicate' is no case source*"])


def test_the_terminal_summary_names_what_a_declared_space_excludes(plugin_run):
    plugin_run.pytester.makepyfile(spaced="""
import mlacheck
from backends import decode as _decode

def decode(inputs):
    return _decode(inputs)

decode.space = mlacheck.Space(lv_rope=[(512, 64)], heads=[16, 128], sequences=False)
""")
    space = mlacheck.Space(lv_rope=[(512, 64)], heads=[16, 128], sequences=False)
    assert space.excludes
    result = plugin_run("--mlacheck-backend", "spaced:decode", "--mlacheck-plan", "properties", "--mlacheck-size", "2")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "the backend's space excludes: " + "; ".join(space.excludes) in result.outlines
    # No declared space: no such line.
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan", "properties", "--mlacheck-size", "2")
    assert "space excludes" not in result.stdout.str()
    # Under pytest-xdist the workers send the line and the controller prints it once.
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (Debian: python3-pytest-xdist)")
    result = plugin_run("-n", "2", "--mlacheck-backend", "spaced:decode", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "2")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert result.outlines.count("the backend's space excludes: " + "; ".join(space.excludes)) == 1
