"""Isolation on the Python route (running/_worker_pool.py): a backend that crashes, aborts, exits,
hangs or raises on one case costs that case alone, one ERRORED row naming what happened; every
other case still runs and passes; the run fails. Through mlacheck.run and the pytest plugin."""

from __future__ import annotations

import csv
import os

import pytest

import mlacheck
from conftest import BF16_MTP, F32_OUT, FP8_CACHE, HERE
from mlacheck.running._backend_load import BackendNotPortable

def _unnamed(repro: str) -> str:
    """The repro string without its name= field (a scenario table's id names the case)."""
    op, fields = repro.split(":", 1)
    return op + ":" + ";".join(f for f in fields.split(";") if not f.startswith("name="))


# A plan of three small cases (a scenario table of our own): the middle one breaks.
SMALL_TABLE = "id,upstream,reference,model,title,fault,caught_by,case,note\n" + "".join(
    f'{name},S1,test,test,test,persistent-buffers-partial,refusal,"{_unnamed(repro)}",test\n'
    for name, repro in (("a", BF16_MTP), ("b", FP8_CACHE), ("c", F32_OUT))
)
BROKEN = "scenario.b"
HANG_BASE_S = 3.0  # the watchdog's base limit in the tests of a hang

# backend -> what its ERRORED row says
BREAKS = {
    "segfaults": "died while running this case: signal 11 (Segmentation fault)",
    "aborts": "died while running this case: signal 6 (Aborted)",
    "exits_zero": "died while running this case: exit status 0",
    "exits_three": "died while running this case: exit status 3",
    "raises": "backend raised RuntimeError: the kernel refused its launch",
    "hangs": f"timed out after {int(HANG_BASE_S)} s (watchdog); the case's worker process was killed",
}


@pytest.fixture
def small_table(tmp_path, monkeypatch):
    path = tmp_path / "small.csv"
    path.write_text(SMALL_TABLE)
    monkeypatch.setenv("MLACHECK_TEST_BREAK_CASE", BROKEN)
    return str(path)


def base_for(backend: str) -> float:
    return HANG_BASE_S if backend == "hangs" else 120.0


@pytest.mark.parametrize("backend", sorted(BREAKS))
def test_a_broken_case_is_one_errored_row_and_the_others_pass(backend, small_table, tmp_path):
    plan = mlacheck.plan("scenarios", scenarios=small_table)
    report = tmp_path / "report"
    verdicts = mlacheck.run(plan, f"breaking_backends:{backend}", report_dir=report, progress=False,
                            timeout_base_s=base_for(backend))
    assert [v.id for v in verdicts] == [case.id for case in plan]
    states = {v.id: v for v in verdicts}
    broken = states.pop(BROKEN)
    assert broken.state == "ERRORED" and BREAKS[backend] in broken.reason, broken.reason
    assert all(v.state == "PASSED" for v in states.values()), [v.describe() for v in states.values()]
    with open(report / "report.csv", newline="") as f:
        rows = {row["id"]: row["state"] for row in csv.DictReader(f)}
    assert rows == {v.id: v.state for v in verdicts}


def test_a_crash_row_names_the_backends_frame_first(small_table):
    plan = mlacheck.plan("scenarios", scenarios=small_table)
    [broken] = [v for v in mlacheck.run(plan, "breaking_backends:segfaults", progress=False) if v.state != "PASSED"]
    stack = broken.reason.split("most recent call first: ", 1)[1]
    assert stack.startswith('File "') and "breaking_backends.py" in stack.split(" <- ")[0] and "_segfault" in stack


def test_a_picklable_backend_object_reaches_the_workers(small_table):
    import breaking_backends

    plan = mlacheck.plan("scenarios", scenarios=small_table)
    states = [v.state for v in mlacheck.run(plan, breaking_backends.aborts, progress=False)]
    assert states == ["PASSED", "ERRORED", "PASSED"]


def test_a_backend_no_worker_can_import_is_refused_naming_the_ways_out():
    plan = mlacheck.plan(repro=BF16_MTP)
    with pytest.raises(BackendNotPortable, match=r"module:attribute.*isolation=\"none\""):
        mlacheck.run(plan, lambda inputs: None, progress=False)


def test_isolation_none_runs_in_this_process():
    import numpy_backend

    def local_decode(inputs):  # a closure: no worker could import it
        return numpy_backend.decode(inputs)

    [v] = mlacheck.run(mlacheck.plan(repro=BF16_MTP), local_decode, progress=False, isolation="none")
    assert v.state == "PASSED", v.describe()
    with pytest.raises(ValueError, match="isolation"):
        mlacheck.run(mlacheck.plan(repro=BF16_MTP), local_decode, isolation="thread")


def plugin_args(backend: str, table: str) -> tuple[str, ...]:
    return ("--mlacheck-backend", f"breaking_backends:{backend}", "--mlacheck-plan", "scenarios",
            "--mlacheck-scenarios", table, "--mlacheck-timeout-base", str(base_for(backend)))


@pytest.fixture
def isolated_plugin_run(plugin_run, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([HERE, os.environ["PYTHONPATH"]]))
    return plugin_run


@pytest.mark.parametrize("backend", ["segfaults", "exits_zero", "hangs"])
def test_the_plugin_fails_the_broken_case_alone(backend, small_table, isolated_plugin_run, tmp_path):
    report = tmp_path / "plugin-report"
    result = isolated_plugin_run(*plugin_args(backend, small_table), "--mlacheck-report", str(report))
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"*{BREAKS[backend]}*"])
    with open(report / "report.csv", newline="") as f:
        assert sorted(row["state"] for row in csv.DictReader(f)) == ["ERRORED", "PASSED", "PASSED"]


def test_the_plugin_runs_no_deselected_case(small_table, isolated_plugin_run, tmp_path):
    report = tmp_path / "plugin-report"
    # The broken case is deselected: had it run ahead, its worker would have died (a row for it).
    result = isolated_plugin_run(*plugin_args("exits_zero", small_table), "--mlacheck-report", str(report),
                                 "--deselect", f"mlacheck::{BROKEN}")
    result.assert_outcomes(passed=2, deselected=1)
    with open(report / "report.csv", newline="") as f:
        assert [row["id"] for row in csv.DictReader(f)] == ["scenario.a", "scenario.c"]


def test_the_plugin_in_process_for_debugging(small_table, isolated_plugin_run):
    result = isolated_plugin_run(*plugin_args("raises", small_table), "--mlacheck-isolation", "none")
    result.assert_outcomes(passed=2, failed=1)


def test_the_plugin_under_xdist_isolates_each_worker(small_table, isolated_plugin_run):
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (Debian: python3-pytest-xdist)")
    result = isolated_plugin_run(*plugin_args("aborts", small_table), "-n", "2")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([f"*{BREAKS['aborts']}*"])


def test_a_cases_watchdog_limit_grows_with_its_work():
    small = mlacheck.plan(repro=BF16_MTP)[0]
    large = mlacheck.plan(repro="mla_decode:heads=128;tp=1;lv=512;rope=64;kv=16384*8;q=4*8;bs=64;"
                                "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=1")[0]
    assert 10.0 <= small.timeout_s(10.0) < large.timeout_s(10.0)
    assert small.timeout_s(10.0) - small.timeout_s(0.0) == pytest.approx(10.0)


def test_a_row_from_a_worker_becomes_the_same_verdict_and_a_damaged_one_is_refused():
    import numpy_backend
    from mlacheck.api._verdict import verdict_from_csv

    v = mlacheck.check(mlacheck.plan(repro=BF16_MTP)[0], numpy_backend.decode)
    again = verdict_from_csv(v.csv_header, v.csv_record)
    assert (again.id, again.state, again.csv_record) == (v.id, v.state, v.csv_record)
    with pytest.raises(mlacheck.MlacheckError, match="a worker's row"):
        verdict_from_csv(v.csv_header, v.csv_record.rstrip("\n"))  # torn: no line end


def test_every_way_of_breaking_in_one_run(small_table, monkeypatch):
    monkeypatch.setenv("MLACHECK_TEST_BREAKS", "scenario.a=abort,scenario.c=exit_three")
    plan = mlacheck.plan("scenarios", scenarios=small_table)
    verdicts = mlacheck.run(plan, "breaking_backends:breaks_many", progress=False)
    assert [(v.state, v.reason.split(": ", 1)[-1][:22]) for v in verdicts] == [
        ("ERRORED", "signal 6 (Aborted); th"), ("PASSED", ""), ("ERRORED", "exit status 3")]


def test_two_workers_a_gpu_unless_told_and_one_without_a_gpu(small_table, monkeypatch):
    from mlacheck.running._worker_pool import WorkerPool

    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    assert WorkerPool("numpy_backend:decode").processes == 4
    assert WorkerPool("numpy_backend:decode", per_device=1).processes == 2
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert WorkerPool("numpy_backend:decode").processes == 1
    # Two workers on one (named) GPU share its cases: every row arrives, in the plan's order.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.delenv("MLACHECK_TEST_BREAK_CASE")
    plan = mlacheck.plan("scenarios", scenarios=small_table)
    verdicts = mlacheck.run(plan, "numpy_backend:decode", progress=False)
    assert [(v.id, v.state) for v in verdicts] == [(case.id, "PASSED") for case in plan]
