"""Cases whose blocks start at a first_block (pools past 4 GiB, UPSTREAM R4): handed out as a
PooledCache, made at full size and poisoned where a backend asks for it, and SKIPPED as not checked
on this machine when the memory is not there. The pools here are small (a first_block of a few
blocks); the R4 rows' pools are only described, never made, so these tests fit any CI host."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import one_case

import mlacheck
import numpy_backend
from mlacheck.api import _pool

SHAPE = "heads=16;tp=1;rank=0;lv=64;rope=16;kv=37,5;q=3,2;bs=4;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=7"
POOLED = "mla_decode:name=pooled;" + SHAPE + ";first_block=40"
WHOLE = "mla_decode:name=whole;" + SHAPE
POOLED_FP8 = (
    "mla_decode:name=pooled-fp8;heads=8;tp=1;rank=0;lv=32;rope=16;kv=20,9;q=1,2;bs=8;q_dtype=bf16;"
    "kv_dtype=fp8_e4m3fn;o_dtype=f16;kv_scale=0.125;seed=3;first_block=6"
)
NOT_CHECKED_HERE = "not enough memory on this machine: "


def test_a_first_block_case_is_offered_as_a_pooled_cache():
    case = one_case(POOLED)
    assert case.unsupported_reason is None
    cache = case.inputs().kv_cache
    p = case.problem
    assert isinstance(cache, mlacheck.PooledCache)
    assert cache.shape == (p.num_blocks, p.block_size, p.lk) and cache.dtype_name == "bf16"
    assert cache.first_block == 40 and cache.nbytes == p.num_blocks * p.block_size * p.lk * 2
    table = case.inputs().block_table.codes
    assert list(cache.block_ids) == sorted(set(table[table >= 0].tolist()))
    assert cache.block_ids.min() >= 40 and cache.blocks.shape == (len(cache.block_ids), p.block_size, p.lk)
    assert cache.fill_code == mlacheck.poison_code("bf16")  # the staging layer's poison (core/poison_codes.hpp)


def test_the_host_pool_is_poisoned_but_for_the_requests_blocks_which_hold_the_twins_values():
    pooled = one_case(POOLED).inputs()
    whole = one_case(WHOLE).inputs()
    pool = pooled.kv_cache.codes
    assert pool.shape == pooled.kv_cache.shape and pool.dtype == np.uint16
    assert (pool[:40] == mlacheck.poison_code("bf16")).all()  # below first_block: the staging layer's poison
    assert (pool[pooled.kv_cache.block_ids] == pooled.kv_cache.blocks.codes).all()
    # A request's position holds what it holds without first_block (values depend on position only).
    p = pooled.problem
    for r, kv_len in enumerate(p.kv_lens):
        for pos in range(kv_len):
            row = pool[pooled.block_table.codes[r, pos // p.block_size], pos % p.block_size]
            twin = whole.kv_cache.codes[whole.block_table.codes[r, pos // p.block_size], pos % p.block_size]
            assert (row == twin).all()
    assert pooled.kv_cache.codes is pool  # made once


def test_a_numpy_backend_passes_a_pooled_case_and_a_block_offset_bug_fails_on_the_poison():
    case = one_case(POOLED)
    assert mlacheck.check(case, numpy_backend.decode).state == "PASSED"

    def ignores_first_block(inputs):
        inputs.block_table.codes[inputs.block_table.codes >= 0] -= inputs.kv_cache.first_block
        return numpy_backend.decode(inputs)

    verdict = mlacheck.check(one_case(POOLED), ignores_first_block)
    assert verdict.state == "FAILED" and verdict.reason.startswith("O: "), verdict.describe()
    o = verdict.tensors["O"]
    assert o.nonfinite + o.unwritten == o.total  # every row read the poison (a NaN O encodes to it)


def test_a_host_without_the_room_skips_the_case_naming_the_bytes(monkeypatch):
    case = one_case(POOLED)
    nbytes = case.inputs().kv_cache.nbytes
    monkeypatch.setattr(_pool, "host_available_bytes", lambda: 2 * nbytes - 2)  # half of it is 1 byte short
    with pytest.raises(mlacheck.NotEnoughMemory) as raised:
        case.inputs().kv_cache.codes
    assert raised.value.needed == nbytes and raised.value.free == 2 * nbytes - 2
    verdict = mlacheck.check(case, numpy_backend.decode)  # which reads the pool's codes
    assert verdict.state == "SKIPPED" and not verdict.is_failure
    assert verdict.reason.startswith(NOT_CHECKED_HERE + f"the cache pool needs {nbytes} bytes")
    assert "of host memory" in verdict.reason and "MiB are free" in verdict.reason
    monkeypatch.setattr(_pool, "host_available_bytes", lambda: 8 * nbytes)
    assert mlacheck.check(one_case(POOLED), numpy_backend.decode).state == "PASSED"


def test_a_memory_error_while_allocating_the_pool_skips_the_case(monkeypatch):
    real_empty = np.empty
    pool_shape = one_case(POOLED).inputs().kv_cache.shape

    def empty(shape, dtype=float, *args, **kwargs):
        if tuple(np.atleast_1d(shape)) == pool_shape:
            raise MemoryError("Unable to allocate the pool")
        return real_empty(shape, dtype, *args, **kwargs)

    monkeypatch.setattr(_pool.np, "empty", empty)
    verdict = mlacheck.check(one_case(POOLED), numpy_backend.decode)
    assert verdict.state == "SKIPPED" and verdict.reason.startswith(NOT_CHECKED_HERE), verdict.reason
    assert "Unable to allocate the pool" in verdict.reason


def test_other_backend_failures_stay_errored():
    def raises(inputs):
        raise RuntimeError("kernel launch failed")

    assert mlacheck.check(one_case(POOLED), raises).state == "ERRORED"


def test_the_r4_scenarios_and_past_4gib_property_cases_are_offered_without_their_pools():
    r4 = [c for c in mlacheck.plan("scenarios") if c.id.startswith("scenario.r4_")]
    generated = [c for c in mlacheck.plan("properties", size=200, seed=1) if "first_block=" in c.repro]
    assert len(r4) == 3 and generated
    for case in r4 + generated:
        assert case.unsupported_reason is None
        cache = case.inputs().kv_cache
        p = case.problem
        assert isinstance(cache, mlacheck.PooledCache) and cache.nbytes >= 2**32
        row_bytes = p.lk * cache.nbytes // (p.num_blocks * p.block_size * p.lk)
        assert int(cache.block_ids[0]) * p.block_size * row_bytes >= 2**32  # every row read lies past 4 GiB
        assert cache.blocks.codes.nbytes < 2**28  # the host holds the requests' blocks only


# ---- torch ------------------------------------------------------------------------------------


def test_as_torch_makes_the_whole_pool_poisoned_with_the_blocks_in_place(torch):
    inputs = one_case(POOLED).inputs()
    t = inputs.as_torch("cpu")
    assert t.kv_cache.dtype == torch.bfloat16 and tuple(t.kv_cache.shape) == inputs.kv_cache.shape
    assert (t.kv_cache.view(torch.int16).numpy().view(np.uint16) == inputs.kv_cache.codes).all()
    assert t.kv_cache.data_ptr() != inputs.as_torch("cpu").kv_cache.data_ptr()  # a new pool per call


def test_as_torch_of_an_fp8_pool(torch):
    inputs = one_case(POOLED_FP8).inputs()
    pool = inputs.as_torch().kv_cache
    codes = pool if pool.dtype == torch.uint8 else pool.view(torch.uint8)
    assert (codes.numpy() == inputs.kv_cache.codes).all()
    assert (inputs.kv_cache.codes[:6] == 0x7F).all()  # fp8 e4m3fn's NaN


def test_a_cuda_device_without_the_free_memory_is_refused_before_allocating(torch, monkeypatch):
    # mem_get_info answers first; no allocation is tried, so this runs without a GPU too.
    inputs = one_case(POOLED).inputs()
    nbytes = inputs.kv_cache.nbytes
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (nbytes, 80 << 30))  # 9/10 of it is short
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    emptied = []  # torch's cached blocks are handed back before the second reading
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: emptied.append(True))

    def no_allocation(*args, **kwargs):
        raise AssertionError("allocated although the memory was known to be short")

    monkeypatch.setattr(torch, "empty", no_allocation)
    with pytest.raises(mlacheck.NotEnoughMemory) as raised:
        inputs.kv_cache.as_torch("cuda")
    assert str(raised.value).startswith(NOT_CHECKED_HERE + f"the cache pool needs {nbytes} bytes")
    assert "of cuda:0 memory" in str(raised.value) and "nine tenths" in str(raised.value)
    assert emptied == [True]


def test_torch_out_of_memory_while_allocating_the_pool_skips_the_case(torch, monkeypatch):
    real_empty = torch.empty
    pool_shape = one_case(POOLED).inputs().kv_cache.shape

    def empty(*shape, **kwargs):
        if tuple(shape[0] if len(shape) == 1 else shape) == pool_shape:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 GiB")
        return real_empty(*shape, **kwargs)

    monkeypatch.setattr(torch, "empty", empty)

    def decode(inputs):
        inputs.as_torch("cpu")
        raise AssertionError("the pool was allocated")

    verdict = mlacheck.check(one_case(POOLED), decode)
    assert verdict.state == "SKIPPED" and verdict.reason.startswith(NOT_CHECKED_HERE), verdict.reason
    assert "CUDA out of memory" in verdict.reason
