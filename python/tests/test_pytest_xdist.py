"""The plugin under pytest-xdist: workers collect the same cases, each writes DIR/<worker id>/, and
the controller merges them into DIR (report.csv, junit.xml, report.html)."""

from __future__ import annotations

import csv

import pytest

import mlacheck
from conftest import repository_tests

pytest.importorskip("xdist", reason="pytest-xdist is not installed (Debian: python3-pytest-xdist)")

PROPERTIES_8 = ("--mlacheck-plan", "properties", "--mlacheck-size", "8", "--mlacheck-seed", "8")


def ids(path):
    with open(path, newline="") as f:
        return [row["id"] for row in csv.DictReader(f)]


def test_workers_reports_are_merged_into_the_report_folder(plugin_run, tmp_path):
    repository_tests(
        plugin_run.pytester,
        """
        import mlacheck
        import numpy_backend

        def test_decode(mlacheck_case):
            mlacheck.assert_passes(mlacheck_case, numpy_backend.decode)
        """,
    )
    report = tmp_path / "report"
    report.mkdir()
    (report / "junit.xml").write_text("a stale report of another run")
    result = plugin_run("-n", "2", "--mlacheck-backend", "backends:decode", *PROPERTIES_8,
                        "--mlacheck-report", str(report))
    # The items and the fixture's tests: xdist refuses workers whose collections differ.
    result.assert_outcomes(passed=14)
    expected = [case.id for case in mlacheck.plan("properties", size=8, seed=8).backend_cases()]
    workers = [ids(report / worker / "report.csv") for worker in ("gw0", "gw1")]
    assert sorted(workers[0] + workers[1]) == sorted(expected)
    assert ids(report / "report.csv") == workers[0] + workers[1]
    assert (report / "junit.xml").read_text().count("<testcase") == len(expected)
    assert "mlacheck: numpy-reference on properties (seed=8, size=8)" in (report / "report.html").read_text()


def test_a_missing_worker_report_fails_the_session_naming_it(plugin_run, tmp_path):
    report = tmp_path / "report"
    # A worker whose report is lost (a crash, a full disk): the merge must not pass it by.
    plugin_run.pytester.makeconftest(
        f"""
        import os

        def pytest_sessionfinish(session):
            worker = getattr(session.config, "workerinput", {{}}).get("workerid")
            if worker == "gw1":
                os.remove(os.path.join({str(report)!r}, worker, "report.csv"))
        """
    )
    result = plugin_run("-n", "2", "--mlacheck-backend", "backends:decode", *PROPERTIES_8,
                        "--mlacheck-report", str(report))
    result.assert_outcomes(passed=7)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [f"mlacheck: the workers' reports were not merged into {report}: mlacheck_report_merge: cannot read "
         f"{report}/gw1/report.csv: No such file or directory"]
    )
    assert not (report / "report.csv").exists()
