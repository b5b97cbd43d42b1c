"""Backends and the runner: both backend shapes, refusals, exceptions, wrong returns, reports."""

from __future__ import annotations

import csv
import os

import numpy as np
import pytest

import mlacheck
import numpy_backend
from conftest import BF16_MTP, FP8_CACHE
from conftest import run_in_process


def small_plan(folder):
    """Self-checks, kv_gather cases and mla_decode cases (scenarios, the curated sweeps, the
    covering array at strength 1: a pool past 4 GiB and a sequence among them): every kind a run
    meets, without the strength-3 array's nine pools past 4 GiB (minutes on this NumPy backend)."""
    plan_file = folder / "small.plan"
    plan_file.write_text("oracle-self-checks\nscenarios\ndefault-sweeps\ncovering-array strength=1\n")
    return mlacheck.plan(plan_file=str(plan_file))


def test_callable_backend_passes_every_mla_case_of_a_repro_plan():
    for repro in (BF16_MTP, FP8_CACHE):
        [v] = run_in_process(mlacheck.plan(repro=repro), numpy_backend.decode)
        assert v.state == "PASSED", v.describe()
        assert (v.backend, v.device, v.canaries) == ("numpy-reference", "cpu", "n/a")


class ObjectBackend:
    """Writes into staged NumPy outputs; refuses fp8 caches."""

    name = "numpy-object"
    version = "2"
    path = "rows"

    def supports(self, problem):
        return "no fp8 caches here" if problem.kv_dtype.startswith("fp8") else None

    def run(self, inputs, outputs):
        o, lse = numpy_backend.attend(inputs)
        o = numpy_backend.as_output(o, inputs.problem.o_dtype)
        outputs.o[...] = o.codes if isinstance(o, mlacheck.Tensor) else o
        outputs.lse[...] = lse


def test_object_backend_writes_staged_outputs_and_its_refusal_is_skipped():
    verdicts = run_in_process(mlacheck.plan("properties", size=6, seed=2), ObjectBackend())
    states = {v.id: v for v in verdicts}
    for v in verdicts:
        if v.op == "kv_gather":
            assert v.state == "SKIPPED" and "mla_decode only" in v.reason
        elif "kv_dtype=fp8" in v.repro:
            assert v.state == "SKIPPED" and v.reason == "no fp8 caches here"
        else:
            assert v.state == "PASSED", v.describe()
            assert v.canaries == "ok" and v.path == "rows" and v.backend == "numpy-object"
    assert len(states) == 6


def test_oracle_self_checks_run_without_the_backend(tmp_path):
    self_checks = [c for c in small_plan(tmp_path) if c.kind == "oracle_self_check"]
    v = mlacheck.check(self_checks[0], numpy_backend.decode)
    assert v.state == "PASSED" and v.backend == "oracle-plain" and v.path == "oracle"


def test_an_exception_is_errored_with_its_last_line_and_place():
    def decode(inputs):
        raise ValueError("heads=%d is not a tile" % inputs.problem.heads)

    [v] = run_in_process(mlacheck.plan(repro=BF16_MTP), decode)
    assert v.state == "ERRORED" and v.is_failure
    assert v.reason.startswith("backend raised ValueError: heads=16 is not a tile (at ")
    assert "test_runner.py" in v.reason and "in decode)" in v.reason
    assert v.tensors == {}


def test_supports_raising_is_errored():
    def decode(inputs):
        raise AssertionError("never called")

    decode.supports = lambda problem: 1 / 0
    [v] = run_in_process(mlacheck.plan(repro=BF16_MTP), decode)
    assert v.state == "ERRORED" and v.reason.startswith("supports() raised ZeroDivisionError")


@pytest.mark.parametrize(
    "returned, message",
    [
        (lambda i: None, "backend returned O: a builtins.NoneType, the problem needs bf16 [5, 16, 64]"),
        (lambda i: np.zeros((5, 16, 64)), "backend returned O: a NumPy array of float64, the problem needs bf16"),
        (lambda i: np.zeros((5, 16, 64), np.float32), "backend returned O: dtype f32, the problem needs bf16"),
        (
            lambda i: mlacheck.Tensor(np.zeros((5, 16, 32), np.uint16), "bf16"),
            "backend returned O: shape [5, 16, 32], the problem needs [total_q_tokens=5, heads=16, kv_lora_rank=64]",
        ),
        (lambda i: (1, 2, 3), "backend returned a tuple of 3 items, a decode callable returns o or (o, lse)"),
        (
            lambda i: (numpy_backend.decode(i)[0], np.zeros((5, 16), np.float64)),
            "backend returned LSE: a NumPy array of float64, the problem needs f32 [5, 16]",
        ),
    ],
)
def test_wrong_returns_are_errored_naming_what_came_back_and_what_is_needed(returned, message):
    [v] = run_in_process(mlacheck.plan(repro=BF16_MTP), returned)
    assert v.state == "ERRORED"
    assert v.reason == message or v.reason.startswith(message)


def test_report_folder_holds_the_verdict_rows(tmp_path):
    out = tmp_path / "reports" / "run1"  # created as needed
    verdicts = run_in_process(small_plan(tmp_path), numpy_backend.decode, report_dir=out, title="numpy run")
    for name in ("report.csv", "junit.xml", "report.html"):
        assert (out / name).is_file()
    with open(out / "report.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == [v.id for v in verdicts]
    assert all(r == v.columns for r, v in zip(rows, verdicts))
    failures = [v for v in verdicts if v.is_failure]
    assert not failures, "\n".join(v.describe() for v in failures)
    junit = (out / "junit.xml").read_text()
    assert junit.count("<testcase") == len(verdicts)
    assert "numpy run" in (out / "report.html").read_text()


def test_a_report_refuses_a_repeated_id(tmp_path):
    case = mlacheck.plan(repro=BF16_MTP)[0]
    v = mlacheck.check(case, numpy_backend.decode)
    with mlacheck.Report(tmp_path) as report:
        report.append(v)
        with pytest.raises(mlacheck.MlacheckError, match="already holds a row with id 'bf16-mtp'"):
            report.append(v)
    assert os.path.isfile(tmp_path / "junit.xml")


def test_a_report_folder_that_is_a_file_is_named(tmp_path):
    file = tmp_path / "taken"
    file.write_text("")
    with pytest.raises(FileExistsError):
        mlacheck.Report(file)


def test_not_a_backend_is_refused():
    with pytest.raises(TypeError, match="a backend is a callable"):
        run_in_process(mlacheck.plan(repro=BF16_MTP), 42)


def test_torch_object_backend_on_a_torch_device(torch):
    class TorchObject(ObjectBackend):
        device = "cpu"

        def supports(self, problem):
            return None

        def run(self, inputs, outputs):
            o, lse = numpy_backend.attend(inputs)
            outputs.o.copy_(torch.from_numpy(o).to(outputs.o.dtype))
            outputs.lse.copy_(torch.from_numpy(lse).to(torch.float32))

    for repro in (BF16_MTP, FP8_CACHE):
        [v] = run_in_process(mlacheck.plan(repro=repro), TorchObject())
        assert v.state == "PASSED", v.describe()
        assert v.device == "cpu" and v.canaries == "ok"


def test_an_existing_report_is_refused_unless_forced_or_resumed(tmp_path):
    plan = mlacheck.plan("properties", size=4, seed=3)
    cases = list(plan)
    mlacheck.run(cases[:2], numpy_backend.decode, tmp_path, progress=False)
    with pytest.raises(FileExistsError, match="already holds a report.*force=True.*resume=True"):
        mlacheck.run(cases, numpy_backend.decode, tmp_path, progress=False)
    resumed = mlacheck.run(cases, numpy_backend.decode, tmp_path, resume=True, progress=False)
    assert [v.id for v in resumed] == [c.id for c in cases[2:]]  # only the missing ones ran
    rows = (tmp_path / "report.csv").read_text().splitlines()[1:]
    assert sorted(row.split(",", 1)[0] for row in rows) == sorted(c.id for c in cases)
    forced = mlacheck.run(cases[:1], numpy_backend.decode, tmp_path, force=True, progress=False)
    assert len(forced) == 1 and len((tmp_path / "report.csv").read_text().splitlines()) == 2
