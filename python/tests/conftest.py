"""Fixtures of the Python package's tests. The package and libmlacheck_capi.so are found as users
find them (PYTHONPATH and MLACHECK_CAPI, which ctest sets); torch is optional: tests that need it
skip with the reason when this interpreter lacks it."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # numpy_backend

# The plugin loaded as an installed mlacheck's entry point loads it in every session: these tests
# run in such a session (it must stay inert here), and the marks of mlacheck.cases() are registered.
pytest_plugins = ["pytester", "mlacheck.pytest_plugin"]

import mlacheck  # noqa: E402

# Small, fast cases covering the dtypes and shapes the assertions need.
BF16_MTP = (
    "mla_decode:name=bf16-mtp;heads=16;tp=1;rank=0;lv=64;rope=16;kv=37,5;q=3,2;bs=4;"
    "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=7"
)
FP8_CACHE = (
    "mla_decode:name=fp8-cache;heads=8;tp=1;rank=0;lv=32;rope=16;kv=20,9,3;q=1,1,2;bs=8;"
    "q_dtype=bf16;kv_dtype=fp8_e4m3fn;o_dtype=f16;kv_scale=0.125;seed=3"
)
FP8_QUERIES = (
    "mla_decode:name=fp8-queries;heads=16;tp=1;rank=0;lv=64;rope=16;kv=33,6;q=2,1;bs=16;"
    "q_dtype=fp8_e4m3fnuz;kv_dtype=fp8_e4m3fnuz;o_dtype=bf16;kv_scale=0.25;q_scale=0.0234375;seed=11"
)
F32_OUT = (
    "mla_decode:name=f32-out;heads=4;tp=2;rank=1;lv=32;rope=0;kv=11;q=4;bs=1;"
    "q_dtype=f32;kv_dtype=f16;o_dtype=f32;seed=5"
)


def run_in_process(*args, **kwargs):
    """mlacheck.run in this process (isolation="none"): the tests of the adapter, the prefetch,
    progress and settling use backends defined in the test (closures no worker could import);
    test_isolation.py tests the worker processes."""
    return mlacheck.run(*args, isolation="none", **kwargs)


def one_case(repro: str) -> mlacheck.Case:
    plan = mlacheck.plan(repro=repro)
    assert len(plan) == 1
    return plan[0]


@pytest.fixture
def bf16_case():
    return one_case(BF16_MTP)


@pytest.fixture
def fp8_case():
    return one_case(FP8_CACHE)


@pytest.fixture
def fp8_queries_case():
    return one_case(FP8_QUERIES)


@pytest.fixture
def f32_case():
    return one_case(F32_OUT)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed in this interpreter")


# Backends for the plugin's tests, as a kernel repository's module (`backends.py` in pytester's folder).
PLUGIN_BACKENDS = """
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
""" % HERE


@pytest.fixture
def plugin_run(pytester, monkeypatch):
    """Runs pytest with the plugin (in a fresh process, as a kernel repository runs it) in a scratch
    folder holding `backends.py`; `plugin_run.pytester` writes the repository's test files."""
    pytester.makepyfile(backends=PLUGIN_BACKENDS)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]))

    def run(*args):
        return pytester.runpytest_subprocess("-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider", *args)

    run.pytester = pytester
    return run


def repository_tests(pytester, source: str) -> None:
    """A kernel repository's test file, test_repo.py, importing `backends` (and through it numpy_backend)."""
    pytester.makepyfile(test_repo="import backends\n" + textwrap.dedent(source))
