"""Finding and loading libmlacheck_capi.so, and the library's error reporting."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

import mlacheck
from mlacheck.api import _capi

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(mlacheck.__file__)))


def python(code: str, env_changes: dict[str, str | None]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)


def test_the_library_speaks_this_packages_version():
    assert _capi.lib().mlacheck_harness_api_version() == _capi.API_VERSION
    assert os.path.isfile(mlacheck.library_path())


def test_a_wrong_mlacheck_capi_is_named_and_never_second_guessed(tmp_path):
    missing = tmp_path / "libnothing.so"
    result = python("import mlacheck; mlacheck.plan('default')", {"MLACHECK_CAPI": str(missing)})
    assert result.returncode != 0
    assert f"cannot find libmlacheck_capi.so; tried: {missing} ($MLACHECK_CAPI)" in result.stderr


def test_importing_never_needs_the_library(tmp_path):
    result = python("import mlacheck, mlacheck.pytest_plugin; print('ok')", {"MLACHECK_CAPI": str(tmp_path / "x.so")})
    assert result.returncode == 0 and result.stdout.strip() == "ok"


def test_a_build_tree_copy_finds_its_library_without_the_variable():
    try:
        from mlacheck import _paths
    except ImportError:
        pytest.skip("the package was imported from the source tree, which has no _paths.py (only build trees do)")
    result = python("import mlacheck; print(mlacheck.library_path())", {"MLACHECK_CAPI": None})
    assert result.returncode == 0, result.stderr
    assert os.path.samefile(result.stdout.strip(), _paths.CAPI_LIBRARY)


def test_errors_carry_the_function_and_are_per_thread():
    lib = _capi.lib()
    pointer = ctypes.c_void_p()
    assert lib.mlacheck_plan_open(7, 1, 0, None, ctypes.byref(pointer)) == 1
    assert lib.mlacheck_last_error() == b"mlacheck_plan_open: plan kind 7 is not one of 0 (default), 1 (scenarios), 2 (properties)"
    assert lib.mlacheck_plan_open_repro(None, ctypes.byref(pointer)) == 1
    assert lib.mlacheck_last_error() == b"mlacheck_plan_open_repro: repro is NULL"
    assert lib.mlacheck_plan_size(None, None) == 1
    assert lib.mlacheck_last_error() == b"mlacheck_plan_size: plan is NULL"
    plan = mlacheck.plan("properties", size=1)
    assert lib.mlacheck_plan_size(plan._pointer, None) == 1
    assert lib.mlacheck_last_error() == b"mlacheck_plan_size: count is NULL"

    import threading

    seen = []
    thread = threading.Thread(target=lambda: seen.append(lib.mlacheck_last_error()))
    thread.start()
    thread.join()
    assert seen == [b""]  # nothing failed on that thread


def test_a_null_handle_is_an_error_not_a_crash():
    lib = _capi.lib()
    out = ctypes.c_char_p()
    assert lib.mlacheck_case_id(None, ctypes.byref(out)) == 1
    assert lib.mlacheck_last_error() == b"mlacheck_case_id: case is NULL"
    lib.mlacheck_case_free(None)  # NULL is accepted by every _free
    lib.mlacheck_plan_free(None)
    lib.mlacheck_verdict_free(None)


def test_judging_without_outputs_is_refused(bf16_case):
    outcome = mlacheck.api._case.Outcome(bf16_case)
    with pytest.raises(mlacheck.MlacheckError, match="no O was given"):
        outcome.judge()
