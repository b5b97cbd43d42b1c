"""Running a backend over a decode sequence (python/mlacheck/api/_sequence.py): the steps in order over
one set of buffers, each judged as a one-step case through the harness's judge, the sequence's row
from its steps' verdicts (mlacheck_sequence_judge: the first step that was not PASSED, named).

What a backend does wrong is a verdict naming the step: outputs that differ from the step's oracle
(a plan or metadata kept from an earlier step), a write past the cache pool (its guards are checked
after every step), an exception (ERRORED; the sequence stops there and the finished steps' verdicts
stay, in the row's reason and in Verdict.steps), a step that cannot be captured in a CUDA graph.

A backend's `before_replay(inputs)` runs on the host before every step, outside any capture (in
graph mode before the capture and before every replay), as an engine plans before it replays.

What the harness's own machinery raises (opening a step, bringing the buffers to it, judging) is
one ERRORED row naming the step and the harness function, labeled a harness error: never the
backend's failure, never the end of the run."""

from __future__ import annotations

import ctypes
import dataclasses
import time

from ..api import _capi
from ._adapter import _Adapter, collect, describe_exception
from ..api._case import Case, Outcome
from ._graph_replay import GraphCaptureError, GraphReplay, graph_unavailable
from ..api._outputs import StagedOutputs
from ..api._pool import NotEnoughMemory
from ..api._sequence import SequenceInputs, SequenceStep, sequence_of
from ..api._verdict import Verdict, verdict_from_handle

# A step of these states ends the sequence: the later steps are not run.
_ENDS_SEQUENCE = ("ERRORED", "SKIPPED")


class _Clock:
    def __init__(self):
        self.start = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self.start) * 1e3


def _settle(outcome: Outcome, clock: _Clock, *, skipped: str | None = None, errored: str | None = None) -> Verdict:
    if skipped is not None:
        outcome.set_skipped(skipped)
    if errored is not None:
        outcome.set_errored(errored)
    outcome.set_times(0.0, clock.ms())
    return outcome.judge()


def _new_outcome(case, b: _Adapter) -> Outcome:
    outcome = Outcome(case)
    outcome.set_backend(b.name, b.version, b.device_name or "", b.path)
    outcome.set_p_rounding(b.p_rounding)
    return outcome


class _Where:
    """Where the sequence route is in the harness's own machinery, for the row of a harness failure."""

    def __init__(self):
        self.steps: int | None = None
        self.step: int | None = None
        self.doing = "sequence_of"

    def __str__(self) -> str:
        if self.step is None:
            return f"before step 0, in {self.doing}"
        return f"step {self.step} of {self.steps}, in {self.doing}"


def _run_step(step: SequenceStep, inputs: SequenceInputs, staged, b: _Adapter, replay, where: _Where) -> Verdict:
    where.doing = "Outcome (the step's row)"
    outcome = _new_outcome(step, b)
    clock = _Clock()
    try:
        reason = b.supports(step.problem)
    except Exception as error:  # noqa: BLE001 - any failure of the backend is its verdict
        return _settle(outcome, clock, errored=f"supports() raised {describe_exception(error)}")
    if reason is not None:
        return _settle(outcome, clock, skipped=reason)
    if staged is not None:
        where.doing = "StagedOutputs.reset"
        staged.reset()  # the same tensors every step, poisoned afresh

    def call():
        return b.call(inputs, staged)

    where.doing = "the backend's step"
    if b.before_replay is not None:
        try:
            b.before_replay(inputs)  # on the host, outside any capture: the engine's planning
        except NotEnoughMemory as error:
            return _settle(outcome, clock, skipped=str(error))
        except Exception as error:  # noqa: BLE001
            return _settle(outcome, clock, errored=f"before_replay() raised {describe_exception(error)}")
    try:
        if replay is None:
            result = call()
        else:
            result = replay.run(call, staged.reset if staged is not None else None)
    except NotEnoughMemory as error:  # the pool does not fit this machine: not checked here
        return _settle(outcome, clock, skipped=str(error))
    except GraphCaptureError as error:
        return _settle(outcome, clock, errored=f"graph mode: {error}")
    except Exception as error:  # noqa: BLE001
        return _settle(outcome, clock, errored=f"backend raised {describe_exception(error)}")
    where.doing = "collect (the step's outputs)"
    collect(outcome, b, staged, result)
    where.doing = "the cache pool's guards"
    for place, pool in inputs.pools():
        # Only the guards: [front | back] with no data between them.
        outcome.check_guards(f"kv_cache({place})", pool.take_guards(), 0)
    where.doing = "Outcome.judge (the step's verdict)"
    return _settle(outcome, clock)


def judge_sequence(case: Case, steps: list[Verdict]) -> Verdict:
    """The sequence's row from its steps' verdicts (the harness's rule), with `steps` kept."""
    handles = (ctypes.c_void_p * len(steps))(*[v._handle.pointer for v in steps])  # noqa: SLF001
    pointer = ctypes.c_void_p()
    _capi.call("mlacheck_sequence_judge", case._pointer, handles, len(steps), ctypes.byref(pointer))  # noqa: SLF001
    return dataclasses.replace(verdict_from_handle(pointer.value), steps=tuple(steps))


def check_sequence(case: Case, b: _Adapter, *, graph: bool = False) -> Verdict:
    """Runs `b` over the decode sequence `case`, step by step (graph: step 0 captured in a CUDA
    graph and replayed for every step); a failure of the harness's own machinery is the
    sequence's ERRORED row, naming where."""
    clock = _Clock()
    where = _Where()
    try:
        return _run_sequence(case, b, graph, clock, where)
    except Exception as error:  # noqa: BLE001 - a harness failure is this case's row, not the end of the run
        reason = f"{where}: mlacheck harness error (not the backend's): {describe_exception(error)}"
        return _settle(_new_outcome(case, b), clock, errored=reason)


def _run_sequence(case: Case, b: _Adapter, graph: bool, clock: _Clock, where: _Where) -> Verdict:
    case.release()  # the steps are opened afresh from a fresh handle every run
    sequence = sequence_of(case)
    where.steps = sequence.steps
    where.doing = "Outcome (the sequence's row)"
    outcome = _new_outcome(case, b)
    try:
        reason = b.supports(case.problem)
    except Exception as error:  # noqa: BLE001
        return _settle(outcome, clock, errored=f"supports() raised {describe_exception(error)}")
    if reason is None and graph:
        reason = graph_unavailable(b)
    if reason is not None:
        return _settle(outcome, clock, skipped=reason)
    where.doing = "SequenceInputs"
    inputs = SequenceInputs(sequence)
    staged = None
    if b.is_object:
        try:
            staged = StagedOutputs(case.problem, b.output_device)
        except Exception as error:  # noqa: BLE001 - a device the backend named but cannot be had
            return _settle(
                outcome, clock, errored=f"staging outputs on device {b.output_device!r} failed: {describe_exception(error)}"
            )
    if b.is_stateful:
        try:
            b.backend.begin(sequence)
        except Exception as error:  # noqa: BLE001
            return _settle(outcome, clock, errored=f"begin(sequence) raised {describe_exception(error)}")
    where.doing = "GraphReplay"
    replay = GraphReplay(b.output_device) if graph else None
    verdicts: list[Verdict] = []
    for index in range(sequence.steps):
        where.step = index
        where.doing = "SequenceStep (mlacheck_sequence_step_open)"
        step = SequenceStep(case, index)
        where.doing = "SequenceInputs.advance"
        inputs.advance(step)
        verdicts.append(_run_step(step, inputs, staged, b, replay, where))
        if verdicts[-1].state in _ENDS_SEQUENCE:
            break
    where.doing = "judge_sequence (mlacheck_sequence_judge)"
    return judge_sequence(case, verdicts)
