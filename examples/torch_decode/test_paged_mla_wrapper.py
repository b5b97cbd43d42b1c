"""Tests of the FlashInfer-style plan()/run() example (paged_mla_wrapper.py) and the hook it plans in,
before_replay(inputs): the backend that plans before every step passes every decode sequence (the
R5 rows and the default sequence sweep) and one-step cases, eagerly on every device torch sees and
in graph mode (step 0 captured, the plan refreshed on the host before every replay); its twin that
plans once fails the R5 rows at step 1, the first step whose kv_lens differ from step 0's, eagerly
(its run() reads only the plan) and in graph mode. The graph tests (`-k graph`) need CUDA: on the
CPU they skip, saying so."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch")

import mlacheck  # noqa: E402
import paged_mla_wrapper  # noqa: E402
from test_torch_decode import DEVICES, failures, needs_cuda_graphs, r5_cases, sequence_cases, steps_of  # noqa: E402


def assert_passes(verdicts, cases):
    assert all(v.state == "PASSED" for v in verdicts), failures(verdicts) or [v.describe() for v in verdicts]
    assert [len(v.steps) for v in verdicts] == [steps_of(c) if "steps=" in c.repro else 0 for c in cases]


def assert_fails_at_step_1(verdicts):
    assert verdicts
    for v in verdicts:
        assert v.state == "FAILED" and v.reason.startswith("step 1 of "), v.describe()
        assert v.steps[0].state == "PASSED" and "O" in v.reason, v.describe()


@pytest.mark.parametrize("device", DEVICES)
def test_the_wrapper_planned_before_every_step_passes_every_sequence(device):
    cases = sequence_cases()
    assert_passes(mlacheck.run(cases, paged_mla_wrapper.PlannedMlaBackend(device)), cases)


@pytest.mark.parametrize("device", DEVICES)
def test_the_wrapper_passes_one_step_cases_planned_before_their_step(device):
    cases = mlacheck.plan("properties", size=12, seed=5)
    verdicts = mlacheck.run(cases, paged_mla_wrapper.PlannedMlaBackend(device))
    assert all(v.state in ("PASSED", "SKIPPED") for v in verdicts), failures(verdicts)
    assert sum(v.state == "PASSED" for v in verdicts) >= 8, [v.describe() for v in verdicts]


@pytest.mark.parametrize("device", DEVICES)
def test_the_wrapper_planned_once_fails_the_r5_rows_at_step_1(device):
    assert_fails_at_step_1(mlacheck.run(r5_cases(), paged_mla_wrapper.StaleWrapperBackend(device)))


@needs_cuda_graphs
def test_graph_mode_the_wrapper_planned_before_every_replay_passes_every_sequence():
    cases = sequence_cases()
    assert_passes(mlacheck.run(cases, paged_mla_wrapper.PlannedMlaBackend("cuda"), graph=True), cases)


@needs_cuda_graphs
def test_graph_mode_the_wrapper_planned_once_fails_the_r5_rows_at_step_1():
    assert_fails_at_step_1(mlacheck.run(r5_cases(), paged_mla_wrapper.StaleWrapperBackend("cuda"), graph=True))


def test_graph_mode_without_cuda_skips_the_wrapper_saying_so():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the graph tests above run graph mode itself")
    [v] = mlacheck.run(r5_cases()[:1], paged_mla_wrapper.PlannedMlaBackend("cpu"), graph=True)
    assert v.state == "SKIPPED" and v.reason.startswith("graph mode needs"), v.describe()
