"""mlacheck.shrink on NumPy backends: a wrong kernel's failing case shrinks to one request and still
fails, the same way twice; a passing case is reported and kept; the bounds hold; bad input is a
clear error; an error in the callback comes back as itself."""

from __future__ import annotations

import shlex
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import mlacheck
import numpy_backend
from mlacheck.running import _shrink

# Eight requests, MTP query lengths, an f32 output and a shaped fill: something to shrink.
LARGE = (
    "mla_decode:name=large;heads=32;tp=2;rank=1;lv=64;rope=16;kv=300,17,5,64,1,120,90,33;q=4,1,3,2,1,1,4,1;"
    "bs=16;o_dtype=f32;profile=sink;seed=9"
)


class _Values:
    def __init__(self, array):
        self._array = array

    def values(self):
        return self._array


def rope_ignored(inputs):
    """examples/wrong_plugin's mistake in NumPy: the rope channels left out of the score."""
    p = inputs.problem
    q = inputs.q.values().copy()
    q[..., p.kv_lora_rank :] = 0.0
    view = SimpleNamespace(
        problem=p,
        q=_Values(q),
        kv_cache=inputs.kv_cache,
        block_table=inputs.block_table,
        qo_indptr=inputs.qo_indptr,
        kv_lens=inputs.kv_lens,
    )
    o, lse = numpy_backend.attend(view)
    return numpy_backend.as_output(o, p.o_dtype), lse.astype(np.float32)


rope_ignored.name = "numpy-rope-ignored"


def batch_of(repro: str) -> int:
    return mlacheck.plan(repro=repro)[0].problem.batch


def test_a_wrong_kernel_shrinks_to_one_request_that_still_fails():
    r = mlacheck.shrink(LARGE, rope_ignored)
    assert r.failing and r.stop == "minimal"
    assert r.failure == "FAILED O values"
    assert r.original == mlacheck.plan(repro=LARGE)[0].repro
    problem = mlacheck.plan(repro=r.shrunk)[0].problem
    assert problem.batch == 1 and problem.heads == 1 and problem.rope_dim > 0
    assert r.shrunk_verdict.state == "FAILED" and r.shrunk_verdict.repro == r.shrunk
    assert mlacheck.check(mlacheck.plan(repro=r.shrunk)[0], rope_ignored).state == "FAILED"
    # The row keeps the original repro and adds the shrunk one.
    assert r.verdict.repro == r.original and r.verdict.state == "FAILED"
    assert r.verdict.shrunk_repro == r.shrunk
    assert r.verdict.columns["shrunk_repro"] == r.shrunk
    assert r.steps and r.steps[-1].repro == r.shrunk and r.steps[0].change.startswith("drop requests")
    # rope_ignored is this module's function: the lines name it for `python -m mlacheck run`.
    command = shlex.join([sys.executable, "-m", "mlacheck", "run", "--backend", "test_shrink:rope_ignored",
                          "--case", r.shrunk])
    assert r.shrunk_command == command and f"shrunk: {command}" in r.verdict.describe()
    text = r.describe()
    assert text.splitlines()[0].startswith("original: FAILED: O: ")
    assert r.shrunk_command in text and "step 1: drop requests" in text


def test_shrinking_is_deterministic():
    a = mlacheck.shrink(LARGE, rope_ignored)
    b = mlacheck.shrink(mlacheck.plan(repro=LARGE)[0], rope_ignored)  # a Case works as its repro does
    assert a.shrunk == b.shrunk and a.steps == b.steps and a.candidates_run == b.candidates_run


def test_a_passing_case_is_reported_not_failing_and_kept():
    r = mlacheck.shrink(LARGE, numpy_backend.decode)
    assert not r.failing and r.stop == "not failing" and r.failure == ""
    assert r.shrunk == r.original and r.steps == () and r.candidates_run == 0
    assert r.verdict.state == "PASSED" and r.verdict.shrunk_repro == ""
    assert "NOT FAILING" in r.describe()


def test_the_step_bound_holds_and_the_result_still_fails():
    r = mlacheck.shrink(LARGE, rope_ignored, max_steps=2)
    assert r.stop == "max steps" and r.candidates_run == 2
    assert r.shrunk_verdict.state == "FAILED"
    assert batch_of(r.shrunk) < 8  # the first candidate (half the requests) already fails


def test_an_erroring_backend_shrinks_as_an_error():
    def broken(inputs):
        raise IndexError(f"index {inputs.problem.total_q_tokens * 7} out of range")

    r = mlacheck.shrink(LARGE, broken, max_steps=40)
    assert r.failure.startswith("ERRORED backend_exception: backend raised IndexError: index # out of range")
    assert r.shrunk_verdict.state == "ERRORED" and batch_of(r.shrunk) == 1


def test_bad_input_is_a_clear_error():
    with pytest.raises(mlacheck.MlacheckError, match="bogus"):
        mlacheck.shrink("mla_decode:kv=1;q=1;bogus=3", rope_ignored)
    with pytest.raises(mlacheck.MlacheckError, match="shrinking takes mla_decode cases"):
        mlacheck.shrink("kv_gather:name=g", rope_ignored)
    with pytest.raises(mlacheck.MlacheckError, match="max_steps must be >= 1"):
        mlacheck.shrink(LARGE, rope_ignored, max_steps=0)
    with pytest.raises(TypeError, match="an mlacheck.Case or a repro string"):
        mlacheck.shrink(42, rope_ignored)


def test_an_error_in_the_harness_callback_is_raised_again(monkeypatch):
    calls = []
    real = _shrink._run_repro

    def failing_third(repro, backend):
        calls.append(repro)
        if len(calls) == 3:
            raise RuntimeError("the third run broke")
        return real(repro, backend)

    monkeypatch.setattr(_shrink, "_run_repro", failing_third)
    with pytest.raises(RuntimeError, match="the third run broke"):
        mlacheck.shrink(LARGE, rope_ignored)
    assert len(calls) == 3
