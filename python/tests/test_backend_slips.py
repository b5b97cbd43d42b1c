"""A backend's slips each make a clear row: supports() returning a bool or "", any exception type,
meta tensors, and the place of an exception (the backend's own frame, the traceback kept)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mlacheck
import numpy_backend


@pytest.mark.parametrize("answer", [True, False, ""])
def test_supports_must_return_none_or_a_reason(bf16_case, answer):
    def decode(inputs):
        return numpy_backend.decode(inputs)

    decode.supports = lambda problem: answer
    v = mlacheck.check(bf16_case, decode)
    assert v.state == "ERRORED"
    assert f"supports() returned {answer!r}" in v.reason and "non-empty string" in v.reason
    assert "decode" in v.reason  # names the backend


class Stop(BaseException):
    pass


def test_any_exception_type_is_an_errored_row(bf16_case):
    def decode(inputs):
        raise Stop("a BaseException the backend raised")

    v = mlacheck.check(bf16_case, decode)
    assert v.state == "ERRORED" and "backend raised" in v.reason and "Stop" in v.reason


def test_meta_tensors_are_an_errored_row(bf16_case, torch):
    def decode(inputs):
        return torch.empty((4, 4), device="meta", dtype=torch.bfloat16)

    v = mlacheck.check(bf16_case, decode)
    assert v.state == "ERRORED" and "meta tensor as O" in v.reason


def test_the_backends_own_frame_is_named_and_the_traceback_kept(bf16_case):
    def decode(inputs):
        return np.linalg.inv(np.zeros((2, 2)))  # raises inside NumPy

    v = mlacheck.check(bf16_case, decode)
    assert v.state == "ERRORED"
    assert f"(at {__file__}:" in v.reason and "in decode; raised in " in v.reason
    assert "LinAlgError" in v.traceback and "np.linalg.inv" in v.traceback
    assert "backend traceback:" in v.describe()


def test_python_m_mlacheck_runs_a_backend_and_lists_a_plan(tmp_path):
    env_run = [sys.executable, "-m", "mlacheck"]
    listed = subprocess.run([*env_run, "plan", "--plan", "properties", "--size", "3"], capture_output=True, text=True)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 3
    here = str(__import__("pathlib").Path(__file__).parent)
    passed = subprocess.run([*env_run, "run", "--backend", "numpy_backend:decode", "--backend-path", here,
                             "--plan", "properties", "--size", "3", "--out", str(tmp_path), "--no-progress"],
                            capture_output=True, text=True)
    assert passed.returncode == 0, passed.stderr
    assert (tmp_path / "report.csv").is_file()
    again = subprocess.run([*env_run, "run", "--backend", "numpy_backend:decode", "--backend-path", here,
                            "--plan", "properties", "--size", "3", "--out", str(tmp_path)], capture_output=True, text=True)
    assert again.returncode == 2 and "already holds a report" in again.stderr
    bad = subprocess.run([*env_run, "run", "--backend", "no_such_module:x"], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot import 'no_such_module'" in bad.stderr
