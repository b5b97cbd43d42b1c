"""Cases: the problem record, the inputs in backend_abi.h's layouts as codes, codecs, the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import mlacheck


def test_problem_has_every_field_and_derived_size(bf16_case):
    p = bf16_case.problem
    assert (p.total_heads, p.tp, p.tp_rank, p.kv_lora_rank, p.rope_dim) == (16, 1, 0, 64, 16)
    assert (p.heads, p.lk, p.batch) == (16, 80, 2)
    assert p.kv_lens == (37, 5) and p.q_lens == (3, 2)
    assert (p.total_q_tokens, p.total_kv_tokens, p.max_q_len, p.max_kv_len) == (5, 42, 3, 37)
    assert p.block_size == 4 and p.max_blocks_per_request == 10 and p.num_blocks == 10 + 2
    assert p.scale == pytest.approx(1 / np.sqrt(80))
    assert (p.q_dtype, p.kv_dtype, p.o_dtype, p.kv_scale) == ("bf16", "bf16", "bf16", 1.0)
    assert (p.path, p.num_splits, p.fill, p.seed) == ("auto", 0, "random", 7)
    assert p.repro == bf16_case.repro and p.name == "bf16-mtp"
    assert p.o_shape == (5, 16, 64) and p.lse_shape == (5, 16)


def test_tensor_parallel_rank_fields(f32_case):
    p = f32_case.problem
    assert (p.total_heads, p.tp, p.tp_rank, p.heads) == (4, 2, 1, 2)


def test_inputs_follow_the_abi_layouts(bf16_case):
    p = bf16_case.problem
    inputs = bf16_case.inputs()
    assert inputs.q.dtype_name == "bf16" and inputs.q.codes.dtype == np.uint16
    assert inputs.q.shape == (p.total_q_tokens, p.heads, p.lk)
    assert inputs.kv_cache.shape == (p.num_blocks, p.block_size, p.lk)
    table = inputs.block_table.codes
    assert table.shape == (p.batch, p.max_blocks_per_request) and table.dtype == np.int32
    for r, kv_len in enumerate(p.kv_lens):
        used = -(-kv_len // p.block_size)
        assert (table[r, :used] >= 0).all() and (table[r, used:] == -1).all()
    used_blocks = table[table >= 0]
    assert len(set(used_blocks.tolist())) == used_blocks.size  # no block is dealt twice
    assert inputs.kv_lens.codes.tolist() == list(p.kv_lens)
    assert inputs.q_lens.codes.tolist() == list(p.q_lens)
    assert inputs.qo_indptr.codes.tolist() == [0, 3, 5]
    assert inputs.kv_indptr.codes.tolist() == [0, 37, 42]


def test_unread_cache_slots_hold_nan_and_read_ones_are_finite(bf16_case):
    p = bf16_case.problem
    inputs = bf16_case.inputs()
    cache = inputs.kv_cache.values()
    table = inputs.block_table.codes
    read = np.zeros(p.num_blocks * p.block_size, dtype=bool)
    for r, kv_len in enumerate(p.kv_lens):
        for pos in range(kv_len):
            read[table[r, pos // p.block_size] * p.block_size + pos % p.block_size] = True
    flat = cache.reshape(-1, p.lk)
    assert np.isfinite(flat[read]).all()
    assert np.isnan(flat[~read]).all()


def test_fp8_cache_codes_decode_to_scaled_values(fp8_case):
    inputs = fp8_case.inputs()
    assert inputs.kv_cache.dtype_name == "fp8_e4m3fn" and inputs.kv_cache.codes.dtype == np.uint8
    values = inputs.kv_cache.values()
    finite = values[np.isfinite(values)]
    # codes span [-1/kv_scale, 1/kv_scale) = [-8, 8), so kv_scale * code stays within about [-1, 1)
    assert np.abs(finite).max() <= 8.0 and np.abs(finite).max() > 1.0
    assert np.array_equal(mlacheck.encode("fp8_e4m3fn", finite), inputs.kv_cache.codes.reshape(-1)[np.isfinite(values.reshape(-1))])


def test_codecs_round_to_nearest_even_and_saturate():
    assert mlacheck.encode("bf16", np.array([1.0, -2.0], np.float32)).tolist() == [0x3F80, 0xC000]
    # 1 + 2^-8 is a tie between bf16 1.0 and 1.0078125: to even (1.0)
    assert mlacheck.encode("bf16", np.array([1.00390625], np.float32)).tolist() == [0x3F80]
    assert mlacheck.encode("fp8_e4m3fn", np.array([1000.0], np.float32)).tolist() == [0x7E]  # 448
    assert np.isnan(mlacheck.decode("fp8_e4m3fnuz", np.array([0x80], np.uint8))[0])  # fnuz's only NaN
    assert mlacheck.decode("f16", np.array([0x3C00], np.uint16)).tolist() == [1.0]
    with pytest.raises(ValueError, match="'int8' is not one of"):
        mlacheck.encode("int8", np.zeros(1))


def test_poison_codes_are_nan_codes_arithmetic_does_not_make():
    # Signalling NaNs (quiet bit clear): every conversion and arithmetic operation writes quiet
    # ones, NVIDIA's canonical 0x7FFF / 0x7FFFFFFF among them (docs/tolerance.md, Poison codes).
    assert mlacheck.poison_code("bf16") == 0x7F9A
    assert mlacheck.poison_code("f16") == 0x7CD2
    assert mlacheck.poison_code("f32") == 0x7FA5A5A5
    assert mlacheck.poison_code("bf16") & 0x40 == 0 and mlacheck.poison_code("f16") & 0x200 == 0
    assert mlacheck.poison_code("f32") & 0x400000 == 0
    assert np.isnan(np.array([mlacheck.poison_code("f32")], np.uint32).view(np.float32))[0]
    assert mlacheck.poison_code("fp8_e4m3fn") == 0x7F
    assert mlacheck.poison_code("fp8_e4m3fnuz") == 0x80
    for name in ("bf16", "f16"):
        assert np.isnan(mlacheck.decode(name, np.array([mlacheck.poison_code(name)], np.uint16)))[0]
    assert len(mlacheck.guard_pattern()) == 256
    assert len(set(mlacheck.guard_pattern())) > 200


def test_inputs_are_the_same_object_each_call(bf16_case):
    assert bf16_case.inputs() is bf16_case.inputs()


def test_expected_outputs_are_the_oracles(bf16_case):
    o, lse = bf16_case.expected()
    p = bf16_case.problem
    assert o.shape == p.o_shape and lse.shape == p.lse_shape and o.dtype == np.float64
    assert np.isfinite(o).all() and np.isfinite(lse).all()
    from numpy_backend import attend

    mine_o, mine_lse = attend(bf16_case.inputs())
    assert np.allclose(o, mine_o, rtol=1e-9, atol=1e-12)
    assert np.allclose(lse, mine_lse, rtol=1e-9, atol=1e-12)


def test_oracle_self_check_case_has_a_problem_but_runs_no_backend():
    case = next(c for c in mlacheck.plan("default", size=0) if c.kind == "oracle_self_check")
    assert case.problem.name == case.id
    assert not case.runs_backend


def test_torch_views_share_memory_and_name_the_dtype(bf16_case, fp8_case, torch):
    t = bf16_case.inputs().as_torch()
    assert t.q.dtype == torch.bfloat16 and t.q.shape == bf16_case.inputs().q.shape
    assert t.block_table.dtype == torch.int32
    codes = bf16_case.inputs().q.codes
    codes[0, 0, 0] = 0x3F80  # 1.0 in bf16: the torch view sees the write (no copy)
    assert float(t.q[0, 0, 0]) == 1.0
    values = bf16_case.inputs().q.values()
    assert np.array_equal(t.q.to(torch.float32).numpy(), values)
    cache = fp8_case.inputs().as_torch().kv_cache
    fp8 = getattr(torch, "float8_e4m3fn", None)
    assert cache.dtype == (fp8 if fp8 is not None else torch.uint8)
