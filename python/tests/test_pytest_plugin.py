"""The pytest plugin, run as a kernel repository runs it (in a fresh pytest process)."""

from __future__ import annotations

import os
import textwrap

import pytest

from conftest import BF16_MTP

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def plugin_run(pytester, monkeypatch):
    """Runs pytest with the plugin in a scratch folder holding `backends.py`."""
    pytester.makepyfile(
        backends=textwrap.dedent(
            """
            import sys
            sys.path.insert(0, %r)
            import numpy as np
            import numpy_backend

            decode = numpy_backend.decode

            def broken(inputs):
                raise RuntimeError("kernel launch failed")

            def off_by_one(inputs):
                o, lse = numpy_backend.attend(inputs)
                o[:, :, 0] += 1.0
                return numpy_backend.as_output(o, inputs.problem.o_dtype), lse.astype(np.float32)

            class Picky:
                name = "picky"
                version = "3"

                def supports(self, problem):
                    return "only one request" if problem.batch > 1 else None

                def run(self, inputs, outputs):
                    o, lse = numpy_backend.attend(inputs)
                    o = numpy_backend.as_output(o, inputs.problem.o_dtype)
                    outputs.o[...] = getattr(o, "codes", o)
                    outputs.lse[...] = lse
            """
            % HERE
        )
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]))

    def run(*args):
        return pytester.runpytest_subprocess("-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider", *args)

    return run


def test_one_item_per_case_named_by_id(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "8", "--mlacheck-seed", "5", "--collect-only", "-q")
    lines = [line for line in result.outlines if line.startswith("mlacheck::")]
    assert lines == [f"mlacheck::sweep-{i}" for i in range(8)]


def test_passing_backend_passes_and_kv_gather_cases_skip_with_the_reason(plugin_run, tmp_path):
    report = tmp_path / "report"
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "8", "--mlacheck-report", str(report), "-rs")
    result.assert_outcomes(passed=7, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*kv_gather cases test mlacheck's built-in*"])
    assert (report / "report.csv").read_text().count("\n") == 1 + 8
    assert (report / "junit.xml").is_file() and (report / "report.html").is_file()


def test_failure_shows_the_reason_errors_and_the_repro_line(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:off_by_one", "--mlacheck-case", BF16_MTP)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FAILED bf16-mtp: O: * of 5120 elements outside abs*",
            "*O: max_abs_err=*",
            '*repro: mlacheck run --case "mla_decode:name=bf16-mtp;heads=16;*',
        ]
    )


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
    result.stdout.fnmatch_lines(["*SKIPPED: only one request*"])


def test_k_selects_cases(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends:decode", "--mlacheck-plan", "properties",
                        "--mlacheck-size", "8", "-k", "sweep-3 or sweep-4")
    result.assert_outcomes(passed=2, deselected=6)


def test_without_a_backend_the_plugin_adds_nothing(plugin_run):
    result = plugin_run("--collect-only", "-q")
    assert not any(line.startswith("mlacheck::") for line in result.outlines)


def test_a_bad_backend_spec_is_a_usage_error(plugin_run):
    result = plugin_run("--mlacheck-backend", "backends")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected MODULE:ATTRIBUTE*"])
    result = plugin_run("--mlacheck-backend", "no_such_module:decode")
    result.stderr.fnmatch_lines(["*cannot import 'no_such_module'*"])
    result = plugin_run("--mlacheck-backend", "backends:nothing")
    result.stderr.fnmatch_lines(["*backends has no attribute 'nothing'*"])
