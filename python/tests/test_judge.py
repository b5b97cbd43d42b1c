"""Judging outputs: the verdict row `mlacheck run` writes, through the harness's judging step."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mlacheck
from numpy_backend import as_output, attend


def exact_outputs(case):
    """O rounded to o_dtype from the oracle's own values, LSE as f32: what a perfect kernel writes."""
    o, lse = case.expected()
    return as_output(o, case.problem.o_dtype), lse.astype(np.float32)


def test_correct_outputs_pass_with_the_derived_bounds(bf16_case):
    o, lse = exact_outputs(bf16_case)
    v = bf16_case.judge(o, lse, backend="mine", version="0.1", device="cpu", path="split")
    assert v.state == "PASSED" and v.passed and not v.is_failure and v.reason == ""
    assert set(v.tensors) == {"O", "LSE"}
    t = v.tensors["O"]
    assert t.total == 5 * 16 * 64 and t.mismatches == 0 and t.unwritten == 0
    assert t.tol_abs > 0 and t.tol_rel == pytest.approx(2 * 2.0**-8) and t.tol_rule.startswith("O(tight): |a-e|<=")
    assert (v.id, v.op, v.repro) == ("bf16-mtp", "mla_decode", bf16_case.repro)
    assert (v.backend, v.device, v.path, v.canaries) == ("mine", "cpu", "split", "n/a")
    assert v.reference_ms >= 0 and v.wall_ms >= v.reference_ms


def test_one_wrong_element_fails_naming_o_and_the_element(bf16_case):
    o, lse = exact_outputs(bf16_case)
    values = o.values()
    values[2, 3, 4] += 0.5
    v = bf16_case.judge(mlacheck.Tensor(mlacheck.encode("bf16", values), "bf16"), lse)
    assert v.state == "FAILED" and v.is_failure
    assert v.reason.startswith("O: 1 of 5120 elements outside abs")
    # Row 2 is query token 2 of request 0 (q_lens 3, 2).
    assert v.reason.endswith("(worst at request 0, query token 2, head 3, channel 4)")
    assert v.tensors["O"].worst_element == "request 0, query token 2, head 3, channel 4"
    assert v.tensors["O"].mismatches == 1
    assert v.repro_command == f'mlacheck run --case "{bf16_case.repro}"'
    assert v.repro_command in v.describe()


def test_poisoned_elements_count_as_unwritten(bf16_case):
    o, lse = exact_outputs(bf16_case)
    o.codes[4, :, :] = mlacheck.poison_code("bf16")
    v = bf16_case.judge(o, lse)
    assert v.state == "FAILED"
    assert v.reason == "O: 1024 of 5120 elements never written (first at request 1, query token 1, head 0, channel 0)"
    assert v.tensors["O"].unwritten == 1024 and v.tensors["O"].nan_written == 0


def test_nan_a_kernel_writes_is_nan_written_not_unwritten(bf16_case):
    # NVIDIA's float-to-bf16 conversion writes every NaN as 0x7FFF (a Triton kernel's 0/0 on a
    # padded row), the poison code before it became a signalling NaN: it read as "unwritten".
    outputs = bf16_case.empty_outputs()
    o, lse = exact_outputs(bf16_case)
    outputs.o[...] = o.codes
    outputs.lse[...] = lse
    outputs.o[3:5] = 0x7FFF  # request 1's query tokens
    v = bf16_case.judge(outputs)
    assert v.state == "FAILED"
    assert v.reason == (
        "O: 2048 of 5120 elements are NaN written by the kernel (worst at request 1, query token 0, head 0, channel 0)"
    )
    t = v.tensors["O"]
    assert (t.unwritten, t.nan_written, t.nonfinite, t.mismatches) == (0, 2048, 2048, 0)
    assert v.columns["o_nan_written"] == "2048" and v.columns["o_unwritten"] == "0"


def test_lse_is_compared_in_the_base_declared(bf16_case):
    o, lse = exact_outputs(bf16_case)
    log2 = (lse.astype(np.float64) / math.log(2)).astype(np.float32)
    assert bf16_case.judge(o, log2, lse_base="log2").state == "PASSED"
    wrong = bf16_case.judge(o, log2)  # declared natural: off by a factor ln 2
    assert wrong.state == "FAILED" and wrong.reason.startswith("LSE: ")
    with pytest.raises(ValueError, match="lse_base 'log10'"):
        bf16_case.judge(o, lse, lse_base="log10")


def test_without_lse_only_o_is_compared(bf16_case):
    o, _ = exact_outputs(bf16_case)
    v = bf16_case.judge(o)
    assert v.state == "PASSED" and set(v.tensors) == {"O"}
    assert v.columns["lse_total"] == ""


def test_strided_outputs_are_read_by_their_strides(f32_case):
    o, lse = exact_outputs(f32_case)
    # the same values, laid out [heads, tokens, Lv] in memory and viewed back as [tokens, heads, Lv]
    transposed = np.ascontiguousarray(o.transpose(1, 0, 2)).transpose(1, 0, 2)
    assert not transposed.flags.c_contiguous
    assert f32_case.judge(transposed, np.asfortranarray(lse)).state == "PASSED"


def test_wrong_dtype_and_shape_are_refused_naming_given_and_needed(bf16_case, f32_case):
    o, lse = exact_outputs(bf16_case)
    with pytest.raises(TypeError, match=r"O: a NumPy array of float64, the problem needs bf16 \[5, 16, 64\]"):
        bf16_case.judge(o.values().astype(np.float64))
    with pytest.raises(mlacheck.MlacheckError, match=r"O: dtype f32, the problem needs bf16"):
        bf16_case.judge(o.values())
    with pytest.raises(
        mlacheck.MlacheckError,
        match=r"O: shape \[4, 16, 64\], the problem needs \[total_q_tokens=5, heads=16, kv_lora_rank=64\]",
    ):
        bf16_case.judge(mlacheck.Tensor(o.codes[:4], "bf16"))
    with pytest.raises(mlacheck.MlacheckError, match=r"LSE: shape \[5\], the problem needs \[total_q_tokens=5, heads=16\]"):
        bf16_case.judge(o, lse[:, 0])
    with pytest.raises(TypeError, match="O: a builtins.list"):
        f32_case.judge([1.0])


def test_staged_outputs_are_poisoned_and_guarded(bf16_case):
    outputs = bf16_case.empty_outputs()
    assert outputs.o.dtype == np.uint16 and outputs.o.shape == (5, 16, 64)
    assert (outputs.o == mlacheck.poison_code("bf16")).all()
    assert outputs.lse.dtype == np.float32 and np.isnan(outputs.lse).all()
    untouched = bf16_case.judge(outputs)
    assert untouched.state == "FAILED" and untouched.reason.startswith("O: 5120 of 5120 elements never written")
    assert untouched.canaries == "ok"


def test_staged_outputs_written_in_place_pass(bf16_case):
    outputs = bf16_case.empty_outputs()
    o, lse = exact_outputs(bf16_case)
    outputs.o[...] = o.codes
    outputs.lse[...] = lse
    v = bf16_case.judge(outputs)
    assert v.state == "PASSED" and v.canaries == "ok"


def test_a_write_past_the_end_breaks_the_guard_and_fails_naming_the_buffer(bf16_case):
    outputs = bf16_case.empty_outputs()
    o, lse = exact_outputs(bf16_case)
    outputs.o[...] = o.codes
    outputs.lse[...] = lse
    o_buffer, _ = outputs.buffers()
    guard = len(mlacheck.guard_pattern())
    o_buffer.allocation[guard + o_buffer.data_bytes] ^= 0xFF  # the byte right after O
    v = bf16_case.judge(outputs)
    assert v.state == "FAILED"
    assert v.canaries == "broken: o(after)"
    assert v.reason.startswith("guard canary overwritten: o(after)")


def test_unwritten_lse_rows_fail_unless_lse_is_not_checked(bf16_case):
    outputs = bf16_case.empty_outputs()
    o, _ = exact_outputs(bf16_case)
    outputs.o[...] = o.codes
    v = bf16_case.judge(outputs)
    assert v.state == "FAILED" and v.reason.startswith("LSE: 80 of 80 elements never written")
    assert bf16_case.judge(outputs, check_lse=False).state == "PASSED"


def test_numpy_backend_reference_agrees_on_an_fp8_cache(fp8_case):
    o, lse = attend(fp8_case.inputs())
    v = fp8_case.judge(as_output(o, "f16"), lse.astype(np.float32))
    assert v.state == "PASSED", v.describe()


def test_fp8_queries_are_codes_scaled_by_q_scale(fp8_queries_case):
    p = fp8_queries_case.problem
    assert (p.q_dtype, p.kv_dtype, p.q_scale) == ("fp8_e4m3fnuz", "fp8_e4m3fnuz", 0.0234375)
    inputs = fp8_queries_case.inputs()
    assert inputs.q.codes.dtype == np.uint8  # one byte per query element
    o, lse = attend(inputs)
    assert fp8_queries_case.judge(as_output(o, "bf16"), lse.astype(np.float32)).state == "PASSED"
    # A backend that reads the codes as values (forgets q_scale) is caught.
    o, lse = attend(inputs, q_scale=1.0)
    assert fp8_queries_case.judge(as_output(o, "bf16"), lse.astype(np.float32)).state == "FAILED"


def test_torch_outputs_on_any_device_are_judged(bf16_case, torch):
    o, lse = exact_outputs(bf16_case)
    o_torch = torch.from_numpy(o.values()).to(torch.bfloat16)
    assert bf16_case.judge(o_torch, torch.from_numpy(lse)).state == "PASSED"
    with pytest.raises(TypeError, match=r"O: a tensor of torch dtype torch.float64, the problem needs bf16"):
        bf16_case.judge(o_torch.to(torch.float64))
    staged = bf16_case.empty_outputs(device="cpu")
    assert staged.o.dtype == torch.bfloat16 and staged.lse.dtype == torch.float32
    staged.o.copy_(o_torch)
    staged.lse.copy_(torch.from_numpy(lse))
    assert bf16_case.judge(staged).state == "PASSED"


def test_unwritten_masks_add_to_the_poison(bf16_case):
    o, lse = exact_outputs(bf16_case)
    mask = np.zeros(bf16_case.problem.o_shape, dtype=bool)
    mask[0, 0, :3] = True
    v = bf16_case.judge(o, lse, o_unwritten=mask, lse_unwritten=np.eye(5, 16, dtype=bool))
    assert v.state == "FAILED" and v.reason.startswith("O: 3 of 5120 elements never written")
    assert v.tensors["O"].unwritten == 3 and v.tensors["LSE"].unwritten == 5
    with pytest.raises(TypeError, match=r"O unwritten mask: shape \[5, 16\], the problem needs \[5, 16, 64\]"):
        bf16_case.judge(o, o_unwritten=np.zeros((5, 16)))


def test_a_declared_rounding_point_judges_with_the_kernel_faithful_oracle(bf16_case):
    # P kept in f32: nothing rounds P, so a correct kernel's O differs from the oracle's O only by
    # fp32 accumulation order and the O rounding the oracle now applies too; the declared bounds
    # are tighter than the undeclared ones, which allow for P rounded to bf16.
    o, lse = exact_outputs(bf16_case)
    undeclared = bf16_case.judge(o, lse)
    declared = bf16_case.judge(o, lse, p_rounding="f32")
    assert undeclared.state == declared.state == "PASSED"
    assert "P fp32" in declared.tensors["O"].tol_rule
    assert declared.tensors["O"].tol_rms < undeclared.tensors["O"].tol_rms
    assert declared.tensors["LSE"].tol_abs < undeclared.tensors["LSE"].tol_abs
    assert "oracle O rounded to o_dtype" in declared.tensors["O"].tol_rule


def test_an_unknown_rounding_point_is_refused(bf16_case):
    o, lse = exact_outputs(bf16_case)
    with pytest.raises(ValueError, match="p_rounding 'fp8'"):
        bf16_case.judge(o, lse, p_rounding="fp8")


def test_nan_a_torch_backend_computes_in_staged_outputs_is_nan_written(bf16_case, torch):
    class ZeroOverZeroOnRequestOne:
        """Writes the right O and LSE except request 1's O, divided by a zero weight sum."""

        name = "zero-over-zero"
        version = "1"
        device = "cpu"

        def supports(self, problem):
            return None

        def run(self, inputs, outputs):
            o, lse = attend(inputs)
            o_t = torch.from_numpy(o)
            qo = inputs.qo_indptr.codes
            rows = slice(int(qo[1]), int(qo[2]))
            o_t[rows] = o_t[rows] * 0.0 / torch.zeros(())
            outputs.o.copy_(o_t.to(torch.bfloat16))
            outputs.lse.copy_(torch.from_numpy(lse).to(torch.float32))

    v = mlacheck.check(bf16_case, ZeroOverZeroOnRequestOne())
    assert v.state == "FAILED", v.describe()
    assert v.reason.startswith("O: 2048 of 5120 elements are NaN written by the kernel")
    assert v.tensors["O"].unwritten == 0 and v.tensors["O"].nan_written == 2048
    assert v.tensors["O"].worst_element == "request 1, query token 0, head 0, channel 0"
