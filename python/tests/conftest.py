"""Fixtures of the Python package's tests. The package and libmlacheck_capi.so are found as users
find them (PYTHONPATH and MLACHECK_CAPI, which ctest sets); torch is optional: tests that need it
skip with the reason when this interpreter lacks it."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # numpy_backend

pytest_plugins = ["pytester"]

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
