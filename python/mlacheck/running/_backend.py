"""The three shapes a Python backend may take, and running one on a case.

A callable: `decode(inputs) -> o` or `(o, lse)`: it allocates its outputs; `inputs` is a
CaseInputs. Attributes it may carry: `name`, `version`, `supports(problem) -> None | reason`,
`lse_base` ("natural" or "log2"), `device_name` (for reports), `p_rounding` (where the kernel
rounds P: "undeclared" (default), "f32", "bf16", "f16", "q_dtype" or "mma_input"; declared, the
case is judged by the tight rule and the kernel-faithful oracle, docs/tolerance.md).

An object with `name`, `version`, `supports(problem) -> None | reason` and
`run(inputs, outputs)`: it writes into `outputs.o` and `outputs.lse`, which the harness staged
poisoned and guarded (StagedOutputs) on `device` (attribute; None for NumPy arrays, else a torch
device). Optional attributes: `device`, `device_name`, `lse_base`, `writes_lse` (False: LSE is
not compared), `path` (the decode path it took, for reports).

A stateful object, for backends that plan once and replay (an engine's CUDA graph): `begin(sequence)`
(a Sequence: the sequence's problem, steps, joins and leaves, max_kv_len, max_blocks_per_request)
then `step(inputs, outputs)` once per step, writing the staged outputs as run() does; the other
attributes as for an object. A one-step case is a sequence of one step to it, unless it has a
run() as well, which then runs the one-step cases.

A decode sequence (a case of several steps, python/mlacheck/api/_sequence.py) runs every shape step by
step over one cache pool, with the inputs in the same buffers at every step; `graph=True` captures
step 0 in a CUDA graph and replays it for the later steps (python/mlacheck/running/_graph_replay.py).

Every shape may carry `before_replay(inputs)`: the host-side planning an engine does before each
replay of a captured step (FlashInfer's plan(), SGLang's init_forward_metadata_replay_cuda_graph).
The harness calls it before every step of every route, with that step's inputs, outside any graph
capture; it may write metadata into buffers the step reads (capture-stable in graph mode).

Every shape: supports() refusing is SKIPPED with its reason (None: supported; a non-empty string:
the reason; anything else, True and False and "" included, is ERRORED naming the backend and what
supports() must return), an exception of any type but KeyboardInterrupt and SystemExit is ERRORED
with the exception's line and where the backend's own code raised it (Verdict.traceback keeps the
whole traceback), meta or fake tensors returned are ERRORED, and outputs of the wrong kind, dtype or shape are
ERRORED naming what was returned and what the problem needs. A cache pool the machine has no room
for (NotEnoughMemory, raised while the backend asks for its inputs) is SKIPPED with that reason:
the case was not checked on this machine.
"""

from __future__ import annotations

import dataclasses
import time

from ..api import _capi
from ..api._case import Case, Outcome
from ..api._pool import NotEnoughMemory
from ..api._sequence import is_sequence, sequence_of
from ..api._verdict import Verdict
from ._adapter import SupportsContractError, adapt, collect, describe_exception, full_traceback
from ._sequence_run import check_sequence


def check(case: Case, backend, *, graph: bool = False, preparation_error: str | None = None) -> Verdict:
    """Runs `backend` on `case` and returns the harness's verdict (a report row). A decode
    sequence runs step by step (python/mlacheck/running/_sequence_run.py); `graph=True` replays its step 0
    from a CUDA graph for the later steps. `preparation_error`: what preparing the case ahead
    raised (the runner's Prefetch), reported where making its inputs would have raised it."""
    b = adapt(backend)
    raised: list[BaseException] = []  # what the backend raised, for the verdict's traceback
    verdict = _check(case, b, graph, preparation_error, raised)
    return dataclasses.replace(verdict, backend_spec=b.spec, traceback=full_traceback(raised[-1]) if raised else "")


def backend_raised(outcome: Outcome, raised: list[BaseException], what: str, error: BaseException) -> None:
    """An exception of the backend's own code as the case's ERRORED row; kept in `raised` for the
    traceback the row carries."""
    raised.append(error)
    outcome.set_errored(f"{what} raised {describe_exception(error)}")


def _check(case: Case, b, graph: bool, preparation_error: str | None, raised: list[BaseException]) -> Verdict:
    if case.kind == "mla_decode" and not case.unsupported_reason and is_sequence(case):
        return check_sequence(case, b, graph=graph)
    outcome = Outcome(case)
    if case.kind == "oracle_self_check":
        return outcome.judge()  # the oracle checks itself; no backend runs
    outcome.set_backend(b.name, b.version, b.device_name or "", b.path)
    outcome.set_p_rounding(b.p_rounding)
    if case.kind != "mla_decode":
        return outcome.judge()  # SKIPPED with the case's unsupported reason
    start = time.perf_counter()

    def finish() -> Verdict:
        outcome.set_times(0.0, (time.perf_counter() - start) * 1e3)
        return outcome.judge()

    try:
        reason = b.supports(case.problem)
    except SupportsContractError as error:
        outcome.set_errored(str(error))
        return finish()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - any failure of the backend is its verdict
        backend_raised(outcome, raised, "supports()", error)
        return finish()
    if reason is not None:
        outcome.set_skipped(reason)
        return finish()

    try:
        if preparation_error is not None:
            raise _capi.MlacheckError(preparation_error)
        inputs = case.inputs()
    except _capi.MlacheckError as error:  # this case's row, not the end of the run
        outcome.set_errored(f"making the case's inputs failed: {error}")
        return finish()
    staged = None
    if b.is_object:
        try:
            staged = case.empty_outputs(b.output_device)
        except Exception as error:  # noqa: BLE001 - a device the backend named but cannot be had
            outcome.set_errored(f"staging outputs on device {b.output_device!r} failed: {describe_exception(error)}")
            return finish()
    try:
        if b.is_stateful and not b.has_run:
            b.backend.begin(sequence_of(case))
        if b.before_replay is not None:
            try:
                b.before_replay(inputs)
            except NotEnoughMemory:
                raise
            except Exception as error:  # noqa: BLE001
                outcome.set_errored(f"before_replay() raised {describe_exception(error)}")
                return finish()
        result = b.call(inputs, staged)
    except NotEnoughMemory as error:  # the case's cache pool does not fit this machine: not checked here
        outcome.set_skipped(str(error), kind="not_enough_memory")
        return finish()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - any type the backend raises is its verdict
        backend_raised(outcome, raised, "backend", error)
        return finish()

    try:
        collect(outcome, b, staged, result)
    except _capi.MlacheckError:
        raise  # a harness failure, not the backend's
    except Exception as error:  # noqa: BLE001 - outputs the harness cannot read (a tensor subclass, ...)
        raised.append(error)
        outcome.set_errored(f"reading the backend's outputs failed: {describe_exception(error)}")
    return finish()
