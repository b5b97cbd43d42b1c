"""Verdicts from Python are settled as every route settles a row (plan/case_settle.hpp): a known
bug from a table the test writes turns a failure into KNOWN_BUG, and a curated case the backend
refuses is SKIPPED, not checked (a Python backend is external), the same as `mlacheck run --backend
<plugin>` settles it."""

from __future__ import annotations

import pytest

import mlacheck
import numpy_backend
from conftest import BF16_MTP
from conftest import run_in_process

HEADER = "id,reference,case,path,backend,platform,rank_heads,q_len,note\n"


def zero_o(inputs):
    """A wrong kernel: O all zeros."""
    o, lse = numpy_backend.attend(inputs)
    return numpy_backend.as_output(o * 0.0, inputs.problem.o_dtype), lse.astype("float32")


def known_bug_table(tmp_path):
    table = tmp_path / "known_bugs.csv"
    table.write_text(HEADER + 'py-bug,issue 9,"mla_decode:kv=37,5",,,,,,zero O\n')
    return str(table)


def test_a_matching_failure_is_a_known_bug_with_its_data_kept(tmp_path):
    [failed] = run_in_process(mlacheck.plan(repro=BF16_MTP, known_bugs=""), zero_o)
    assert failed.state == "FAILED" and failed.is_failure
    [known] = run_in_process(mlacheck.plan(repro=BF16_MTP, known_bugs=known_bug_table(tmp_path)), zero_o)
    assert known.state == "KNOWN_BUG" and not known.is_failure
    assert known.reason == "known bug py-bug (issue 9): " + failed.reason
    assert known.tensors.keys() == failed.tensors.keys()


def test_the_shipped_table_is_the_default():
    # The shipped table holds no entry (the hip backend has no open bug): a failure stays FAILED.
    [v] = run_in_process(mlacheck.plan(repro=BF16_MTP), zero_o)
    assert v.state == "FAILED"


def test_a_curated_case_the_backend_refuses_is_skipped_as_not_checked(tmp_path):
    def decode(inputs):
        raise AssertionError("never called: the case is refused")

    decode.supports = lambda problem: "one request only" if problem.batch > 1 else None
    # A repro plan's case is curated (as `mlacheck run --case`); the known-bug table cannot make
    # a refusal anything but SKIPPED, since a SKIPPED row is no failure to excuse.
    [v] = run_in_process(mlacheck.plan(repro=BF16_MTP, known_bugs=known_bug_table(tmp_path)), decode)
    assert (v.state, v.reason, v.is_failure) == ("SKIPPED", "one request only", False)


def test_a_missing_table_is_refused_naming_it(tmp_path):
    with pytest.raises(mlacheck.MlacheckError, match="none.csv"):
        mlacheck.plan(repro=BF16_MTP, known_bugs=str(tmp_path / "none.csv"))


def test_a_verdict_carries_its_typed_disposition():
    # Wrong numbers: FAILED wrong_output, caught by comparison; the kinds are the C API's names.
    [failed] = mlacheck.run(mlacheck.plan(repro=BF16_MTP, known_bugs=""), zero_o, isolation="none")
    assert (failed.fail_kind, failed.skip_reason, failed.error_kind) == ("wrong_output", "", "")
    assert "comparison" in failed.caught_by.split("|")
    assert failed.columns["fail_kind"] == "wrong_output" and failed.columns["caught_by"] == failed.caught_by

    def raising(inputs):
        raise RuntimeError("the case's process died while running this case: signal 11")  # crash words

    # A backend exception worded like a crash is a backend exception, caught by refusal: no code
    # reads the reason.
    [errored] = mlacheck.run(mlacheck.plan(repro=BF16_MTP, known_bugs=""), raising, isolation="none")
    assert (errored.state, errored.error_kind, errored.caught_by) == ("ERRORED", "backend_exception", "refusal")

    def refusing(inputs):
        raise AssertionError("never called: the case is refused")

    refusing.supports = lambda problem: "not enough memory on this machine: words of a memory skip"
    [skipped] = mlacheck.run(mlacheck.plan(repro=BF16_MTP, known_bugs=""), refusing, isolation="none")
    assert (skipped.state, skipped.skip_reason, skipped.caught_by) == ("SKIPPED", "unsupported", "")


def test_an_outcome_takes_the_kind_of_its_skip_or_error():
    from mlacheck.api._case import Outcome

    case = mlacheck.plan(repro=BF16_MTP, known_bugs="")[0]
    outcome = Outcome(case)
    outcome.set_errored("worker 3 hung", kind="timed_out")
    v = outcome.judge()
    assert (v.state, v.error_kind, v.caught_by) == ("ERRORED", "timed_out", "crash")
    outcome = Outcome(case)
    outcome.set_skipped("needs 90 GiB", kind="not_enough_memory")
    assert outcome.judge().skip_reason == "not_enough_memory"
    with pytest.raises(mlacheck.MlacheckError, match="'segfault' is not"):
        Outcome(case).set_errored("x", kind="segfault")
