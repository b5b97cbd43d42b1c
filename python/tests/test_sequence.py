"""Decode sequences for Python backends (issue 28 item 2, UPSTREAM R5): the steps run over one cache
pool written in place, in the same buffers every step, each judged as a one-step case; the row is
the sequence's and names the first step that went wrong. Graph mode needs CUDA: on a machine
without it the sequence is SKIPPED, saying so (the torch example's graph tests run it on a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

import mlacheck
import numpy_backend
from conftest import one_case
from mlacheck.api._sequence import sequence_of

# Three slots over five steps: request 1 leaves after step 2, request 2 joins at step 2 into the
# slot that was padding (and takes the blocks request 1 gave back at step 3 as it grows).
SEQUENCE = (
    "mla_decode:name=seq-small;heads=16;lv=32;rope=16;kv=9,4,6;q=1,1,2;bs=4;steps=5;join=0,0,2;leave=5,3,5;"
    "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=3"
)
FP8_SEQUENCE = (
    "mla_decode:name=seq-fp8;heads=8;lv=32;rope=16;kv=5,17;q=2,1;bs=8;steps=4;join=0,1;leave=3,4;"
    "q_dtype=bf16;kv_dtype=fp8_e4m3fn;o_dtype=f16;kv_scale=0.125;seed=9"
)


@pytest.fixture
def sequence_case():
    return one_case(SEQUENCE)


def step_states(verdict):
    return [s.state for s in verdict.steps]


def test_a_correct_backend_passes_every_step(sequence_case):
    verdict = mlacheck.check(sequence_case, numpy_backend.decode)
    assert verdict.state == "PASSED", verdict.describe()
    assert verdict.id == "seq-small" and verdict.repro == sequence_case.repro
    assert step_states(verdict) == ["PASSED"] * 5
    # The row carries the tensors of one step: the one that used most of its bound.
    assert verdict.tensors["O"].total == 4 * 16 * 32


def test_the_sequence_is_described_as_the_harness_runs_it(sequence_case):
    sequence = sequence_of(sequence_case)
    assert (sequence.steps, sequence.joins, sequence.leaves) == (5, (0, 0, 2), (5, 3, 5))
    # request 0: 9 tokens at step 0, one more a step: 13 at step 4, in 4 blocks of 4
    assert (sequence.max_kv_len, sequence.max_blocks_per_request) == (13, 4)


class Recorder:
    """A NumPy backend that records what it was given at every step."""

    name = "recorder"

    def __init__(self):
        self.seen = []

    def __call__(self, inputs):
        self.seen.append(
            {
                "step": inputs.step,
                "objects": [id(t) for t in inputs.tensors().values()],
                "buffers": [t.codes.__array_interface__["data"][0] for t in inputs.tensors().values()],
                "kv_lens": inputs.kv_lens.codes.copy(),
                "problem_kv_lens": inputs.problem.kv_lens,
                "written": inputs.written_slots.copy(),
                "table": inputs.block_table.codes.copy(),
            }
        )
        return numpy_backend.decode(inputs)


def test_every_step_sees_the_same_buffers_updated_in_place(sequence_case):
    recorder = Recorder()
    assert mlacheck.check(sequence_case, recorder).state == "PASSED"
    seen = recorder.seen
    assert [s["step"] for s in seen] == [0, 1, 2, 3, 4]
    assert all(s["objects"] == seen[0]["objects"] and s["buffers"] == seen[0]["buffers"] for s in seen)
    # Request 2 joins at step 2 (6 tokens), request 1 leaves at step 3: a padded row of kv_len 0.
    assert [list(s["kv_lens"]) for s in seen] == [[9, 4, 0], [10, 5, 0], [11, 6, 6], [12, 0, 8], [13, 0, 10]]
    assert all(tuple(s["kv_lens"]) == s["problem_kv_lens"] for s in seen)
    # The table keeps the sequence's width; a departed slot is all -1.
    assert all(s["table"].shape == (3, 4) for s in seen) and (seen[3]["table"][1] == -1).all()
    # The KV writer's rows: all of a joiner's tokens, one (or q_len) new token of the others.
    assert [len(s["written"]) for s in seen] == [9 + 4, 1 + 1, 1 + 1 + 6, 1 + 2, 1 + 2]


def test_torch_tensors_are_the_same_objects_every_step(sequence_case, torch):
    pointers = []

    def decode(inputs):
        t = inputs.as_torch("cpu")
        pointers.append((id(t), id(t.kv_cache), t.kv_cache.data_ptr(), t.block_table.data_ptr(), t.q.data_ptr()))
        assert t.kv_lens.tolist() == list(inputs.problem.kv_lens)
        return numpy_backend.decode(inputs)

    assert mlacheck.check(sequence_case, decode).state == "PASSED"
    assert len(pointers) == 5 and len(set(pointers)) == 1


class StaleMetadata:
    """Keeps step 0's kv_lens and block table (a plan made once, never refreshed): from step 1 on
    every request reads one token short."""

    name = "stale-metadata"

    def __init__(self):
        self.kept = None

    def __call__(self, inputs):
        if self.kept is None:
            self.kept = (inputs.kv_lens.codes.copy(), inputs.block_table.codes.copy())
        fresh = (inputs.kv_lens.codes.copy(), inputs.block_table.codes.copy())
        inputs.kv_lens.codes[...], inputs.block_table.codes[...] = self.kept
        try:
            return numpy_backend.decode(inputs)
        finally:
            inputs.kv_lens.codes[...], inputs.block_table.codes[...] = fresh


def test_a_plan_kept_from_step_0_fails_at_step_1(sequence_case):
    verdict = mlacheck.check(sequence_case, StaleMetadata())
    assert verdict.state == "FAILED", verdict.describe()
    assert verdict.reason.startswith("step 1 of 5: "), verdict.reason
    assert step_states(verdict)[0] == "PASSED" and set(step_states(verdict)[1:]) == {"FAILED"}
    assert verdict.reason.endswith("[4 of 5 steps failed]")


class KeepsPreviousQ:
    """Answers every step with the queries of the step before (a reference kept across steps)."""

    name = "previous-q"

    def __init__(self):
        self.previous = None

    def __call__(self, inputs):
        current = inputs.q.codes.copy()
        if self.previous is not None:
            inputs.q.codes[...] = self.previous
        try:
            return numpy_backend.decode(inputs)
        finally:
            inputs.q.codes[...] = current
            self.previous = current


def test_a_backend_reading_the_previous_steps_tensors_fails_naming_the_step(sequence_case):
    verdict = mlacheck.check(sequence_case, KeepsPreviousQ())
    assert verdict.state == "FAILED" and verdict.reason.startswith("step 1 of 5: "), verdict.describe()


class RaisesAt:
    name = "raises"

    def __init__(self, step):
        self.at = step

    def __call__(self, inputs):
        if inputs.step == self.at:
            raise RuntimeError(f"kernel launch failed at step {inputs.step}")
        return numpy_backend.decode(inputs)


def test_raising_mid_sequence_is_errored_and_keeps_the_finished_steps(sequence_case):
    verdict = mlacheck.check(sequence_case, RaisesAt(2))
    assert verdict.state == "ERRORED"
    assert verdict.reason.startswith("step 2 of 5: backend raised RuntimeError: kernel launch failed at step 2")
    assert "(steps 3..4 not run), steps 0..1 passed" in verdict.reason, verdict.reason
    assert step_states(verdict) == ["PASSED", "PASSED", "ERRORED"]
    assert verdict.steps[1].tensors["O"].mismatches == 0


class WritesPastThePool:
    """Writes one element past the end of the cache pool at step 3."""

    name = "writes-past-the-pool"

    def __call__(self, inputs):
        if inputs.step == 3:
            flat = inputs.kv_cache.codes.reshape(-1)
            past = np.lib.stride_tricks.as_strided(flat, shape=(flat.size + 1,), strides=flat.strides)
            past[-1] = 0x1234
        return numpy_backend.decode(inputs)


def test_a_write_past_the_pool_fails_naming_the_step_and_the_guard(sequence_case):
    verdict = mlacheck.check(sequence_case, WritesPastThePool())
    assert verdict.state == "FAILED", verdict.describe()
    assert verdict.reason.startswith("step 3 of 5: ") and "kv_cache(host)" in verdict.reason, verdict.reason
    assert step_states(verdict) == ["PASSED"] * 3 + ["FAILED", "PASSED"]


class StatefulBackend:
    """The stateful shape: begin(sequence) once, then step(inputs, outputs) for every step."""

    name = "numpy-stateful"

    def __init__(self):
        self.begun = []
        self.steps = 0

    def begin(self, sequence):
        self.begun.append((sequence.id, sequence.steps, sequence.max_blocks_per_request))

    def step(self, inputs, outputs):
        self.steps += 1
        o, lse = numpy_backend.attend(inputs)
        outputs.o[...] = numpy_backend.as_output(o, inputs.problem.o_dtype).codes
        outputs.lse[...] = lse


def test_the_stateful_shape_begins_once_and_steps(sequence_case):
    backend = StatefulBackend()
    verdict = mlacheck.check(sequence_case, backend)
    assert verdict.state == "PASSED", verdict.describe()
    assert backend.begun == [("seq-small", 5, 4)] and backend.steps == 5
    assert verdict.canaries == "ok"  # the staged outputs' guards, and the pool's


def test_the_stateful_shape_runs_a_one_step_case_as_a_sequence_of_one(bf16_case):
    backend = StatefulBackend()
    assert mlacheck.check(bf16_case, backend).state == "PASSED"
    assert backend.begun == [(bf16_case.id, 1, bf16_case.problem.max_blocks_per_request)] and backend.steps == 1


def test_outputs_a_step_leaves_unwritten_are_found_at_that_step(sequence_case):
    class SkipsAStep(StatefulBackend):
        def step(self, inputs, outputs):
            if inputs.step != 4:  # the staged outputs are poisoned again before every step
                super().step(inputs, outputs)

    verdict = mlacheck.check(sequence_case, SkipsAStep())
    assert verdict.state == "FAILED" and verdict.reason.startswith("step 4 of 5: "), verdict.describe()
    assert verdict.tensors["O"].unwritten == verdict.tensors["O"].total


def test_begin_raising_is_errored(sequence_case):
    class BadBegin(StatefulBackend):
        def begin(self, sequence):
            raise ValueError("no plan for 3 slots")

    verdict = mlacheck.check(sequence_case, BadBegin())
    assert verdict.state == "ERRORED" and verdict.reason.startswith("begin(sequence) raised ValueError: no plan")


def test_an_fp8_sequence_passes():
    verdict = mlacheck.check(one_case(FP8_SEQUENCE), numpy_backend.decode)
    assert verdict.state == "PASSED", verdict.describe()
    assert len(verdict.steps) == 4


def test_a_sequence_runs_again_from_its_first_step(sequence_case):
    first = mlacheck.check(sequence_case, numpy_backend.decode)
    again = mlacheck.check(sequence_case, numpy_backend.decode)
    assert first.csv_record.split(",")[:8] == again.csv_record.split(",")[:8]
    assert len(again.steps) == 5


def test_graph_mode_without_cuda_is_skipped_saying_so(sequence_case):
    torch = mlacheck.api._torch_interop.torch_module()  # noqa: SLF001
    if torch is not None and torch.cuda.is_available():
        pytest.skip("this machine has CUDA: graph mode runs here (examples/torch_decode's graph tests)")
    verdict = mlacheck.check(sequence_case, numpy_backend.decode, graph=True)
    assert verdict.state == "SKIPPED" and "graph mode needs" in verdict.reason, verdict.reason


def test_the_r5_rows_and_the_default_sequence_sweep_run_for_python_backends():
    scenarios = [c for c in mlacheck.plan("scenarios") if c.id.startswith("scenario.r5_")]
    assert len(scenarios) == 2
    for case in scenarios:
        verdict = mlacheck.check(case, numpy_backend.decode)
        assert verdict.state == "PASSED", verdict.describe()
        assert len(verdict.steps) == sequence_of(case).steps > 1
    stale = mlacheck.check(scenarios[0], StaleMetadata())
    assert stale.state == "FAILED" and stale.reason.startswith("step 1 of 8: "), stale.describe()
    sweep = [c for c in mlacheck.plan("default", size=0) if c.kind == "mla_decode" and sequence_of(c).steps > 1]
    assert len(sweep) > len(scenarios)  # the R5 rows and the default sequence sweep


def test_the_c_api_refuses_a_sequence_judged_whole(sequence_case):
    with pytest.raises(mlacheck.MlacheckError, match="mlacheck_sequence_judge"):
        sequence_case.judge(mlacheck.Tensor(np.zeros(sequence_case.problem.o_shape, dtype=np.uint16), "bf16"))
