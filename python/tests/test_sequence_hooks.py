"""The sequence route's host-side hook and its own failures (issue 34 items 2-3): a backend's
before_replay(inputs) is called before every step with that step's inputs (as an engine plans
before each graph replay), in every route; the torch views a backend is handed are the sequence's
buffers again at every step whatever the backend bound to their names (the aliasing that broke
wrong_decode.py on CUDA); a failure of the harness's own sequence machinery is one ERRORED row
naming the step and the function, labeled the harness's, and the run goes on."""

from __future__ import annotations

import pytest

import mlacheck
import numpy_backend
from conftest import one_case
from mlacheck.api import _capi
from mlacheck.api._sequence import SequenceInputs, SequenceStep, sequence_of
from mlacheck.running import _sequence_run
from test_sequence import SEQUENCE, StatefulBackend


@pytest.fixture
def sequence_case():
    return one_case(SEQUENCE)


class PlansBeforeEveryStep:
    """A callable with the hook: records what each call saw, in the order the harness made them."""

    name = "plans-before-every-step"

    def __init__(self):
        self.events = []

    def before_replay(self, inputs):
        self.events.append(("plan", inputs.step, tuple(int(n) for n in inputs.kv_lens.codes)))

    def __call__(self, inputs):
        self.events.append(("step", inputs.step, tuple(int(n) for n in inputs.kv_lens.codes)))
        return numpy_backend.decode(inputs)


def test_before_replay_is_called_before_every_step_with_that_steps_inputs(sequence_case):
    backend = PlansBeforeEveryStep()
    verdict = mlacheck.check(sequence_case, backend)
    assert verdict.state == "PASSED", verdict.describe()
    plans, steps = backend.events[0::2], backend.events[1::2]
    assert [e[0] for e in plans] == ["plan"] * 5 and [e[0] for e in steps] == ["step"] * 5
    assert [e[1] for e in plans] == [0, 1, 2, 3, 4]
    # Each plan saw exactly the inputs its step then ran on; they change from step to step.
    assert [e[1:] for e in plans] == [e[1:] for e in steps]
    assert len({e[2] for e in plans}) == 5


def test_before_replay_runs_before_a_one_step_case_too(bf16_case):
    class Planned(StatefulBackend):
        def __init__(self):
            super().__init__()
            self.planned = 0

        def before_replay(self, inputs):
            assert self.steps == self.planned  # before the step, once
            self.planned += 1

    backend = Planned()
    assert mlacheck.check(bf16_case, backend).state == "PASSED"
    assert (backend.planned, backend.steps) == (1, 1)


class PlansFromInputs:
    """Plans kv_lens in before_replay and decodes with the planned lengths only; `stale` plans
    once, at step 0, as an integration that forgets to plan before a replay."""

    name = "plans-from-inputs"

    def __init__(self, stale: bool):
        self.stale = stale
        self.planned = None

    def before_replay(self, inputs):
        if self.planned is None or not self.stale:
            self.planned = inputs.kv_lens.codes.copy()

    def __call__(self, inputs):
        fresh = inputs.kv_lens.codes.copy()
        inputs.kv_lens.codes[...] = self.planned
        try:
            return numpy_backend.decode(inputs)
        finally:
            inputs.kv_lens.codes[...] = fresh


def test_a_plan_refreshed_in_before_replay_passes_a_stale_one_fails_where_kv_lens_change(sequence_case):
    assert mlacheck.check(sequence_case, PlansFromInputs(stale=False)).state == "PASSED"
    verdict = mlacheck.check(sequence_case, PlansFromInputs(stale=True))
    assert verdict.state == "FAILED" and verdict.reason.startswith("step 1 of 5: "), verdict.describe()
    assert [s.state for s in verdict.steps][0] == "PASSED"


def test_before_replay_raising_is_errored_at_its_step(sequence_case):
    class Raises(PlansBeforeEveryStep):
        def before_replay(self, inputs):
            if inputs.step == 2:
                raise ValueError("no plan for this batch")

    verdict = mlacheck.check(sequence_case, Raises())
    assert verdict.state == "ERRORED", verdict.describe()
    assert verdict.reason.startswith("step 2 of 5: before_replay() raised ValueError: no plan for this batch")


def test_a_before_replay_that_is_not_callable_is_refused():
    class Bad(PlansBeforeEveryStep):
        before_replay = "plan"

    with pytest.raises(TypeError, match="before_replay is str, not a callable"):
        mlacheck.check(one_case(SEQUENCE), Bad())


def test_a_name_the_backend_rebinds_on_its_torch_view_is_the_sequences_buffer_again(sequence_case, torch):
    """wrong_decode.py binds an expanded (zero-stride) view to its view's block_table. The harness
    once copied the next step's table into whatever that name held: on CUDA, into the expanded
    view (RuntimeError: more than one element of the written-to tensor refers to a single memory
    location, the end of the run); on the CPU the backend kept its own table from then on."""
    inputs = SequenceInputs(sequence_of(sequence_case))
    inputs.advance(SequenceStep(sequence_case, 0))
    t = inputs.as_torch("cpu")
    table = t.block_table
    t.block_table = torch.zeros(1, dtype=torch.int32).expand_as(table)
    t.kv_lens = t.kv_lens.clone()
    step = SequenceStep(sequence_case, 1)
    inputs.advance(step)
    again = inputs.as_torch("cpu")
    assert again is t and again.block_table is table and again.kv_lens.data_ptr() == inputs.kv_lens.codes.ctypes.data
    assert again.block_table[:, : step.metadata()["block_table"].shape[1]].tolist() == step.metadata()["block_table"].tolist()
    assert again.kv_lens.tolist() == list(step.problem.kv_lens)


def _raise_at_step_2(real):
    def advance(self, step):
        if step.index == 2:
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor")
        return real(self, step)

    return advance


def test_a_harness_failure_mid_sequence_is_one_errored_row_and_the_run_goes_on(sequence_case, bf16_case, monkeypatch):
    monkeypatch.setattr(SequenceInputs, "advance", _raise_at_step_2(SequenceInputs.advance))
    verdicts = mlacheck.run([sequence_case, bf16_case], numpy_backend.decode, isolation="none")
    assert [v.state for v in verdicts] == ["ERRORED", "PASSED"], [v.describe() for v in verdicts]
    reason = verdicts[0].reason
    assert reason.startswith(
        "step 2 of 5, in SequenceInputs.advance: mlacheck harness error (not the backend's): RuntimeError: "
        "unsupported operation"
    ), reason
    assert "in advance)" in reason  # the innermost frame's place


def test_a_harness_error_while_collecting_a_step_is_labeled_the_harness_s(sequence_case, monkeypatch):
    def collect(outcome, b, staged, result):
        raise _capi.MlacheckError("mlacheck_outcome_set_o: the harness ran out of memory", 3)

    monkeypatch.setattr(_sequence_run, "collect", collect)
    verdict = mlacheck.check(sequence_case, numpy_backend.decode)
    assert verdict.state == "ERRORED", verdict.describe()
    assert verdict.reason.startswith(
        "step 0 of 5, in collect (the step's outputs): mlacheck harness error (not the backend's): mlacheck.api._capi.MlacheckError: "
        "mlacheck_outcome_set_o: the harness ran out of memory"
    ), verdict.reason
