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

A decode sequence (a case of several steps, python/mlacheck/_sequence.py) runs every shape step by
step over one cache pool, with the inputs in the same buffers at every step; `graph=True` captures
step 0 in a CUDA graph and replays it for the later steps (python/mlacheck/_graph_replay.py).

Every shape: supports() refusing is SKIPPED with its reason, an exception is ERRORED with the
exception's line and where it was raised, and outputs of the wrong kind, dtype or shape are
ERRORED naming what was returned and what the problem needs. A cache pool the machine has no room
for (NotEnoughMemory, raised while the backend asks for its inputs) is SKIPPED with that reason:
the case was not checked on this machine.
"""

from __future__ import annotations

import time
import traceback

from . import _capi
from ._case import Case, Outcome
from ._pool import NotEnoughMemory
from ._sequence import SequenceInputs, is_sequence, sequence_of
from ._torch_interop import is_torch_tensor, torch_module
from ._verdict import Verdict


def describe_exception(error: BaseException) -> str:
    """The traceback's last line, with the innermost frame's place."""
    line = traceback.format_exception_only(type(error), error)[-1].strip()
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        line += f" (at {last.filename}:{last.lineno} in {last.name})"
    return line


def _device_description(device) -> str:
    """A row's device: the GPU's name for a CUDA/ROCm torch device, else the device's text."""
    torch = torch_module()
    if device is None:
        return "cpu"
    if torch is not None:
        dev = torch.device(device)
        if dev.type == "cuda" and torch.cuda.is_available():
            return torch.cuda.get_device_name(dev)
        return str(dev)
    return str(device)


class _Adapter:
    def __init__(self, backend):
        self.backend = backend
        self.has_run = callable(getattr(backend, "run", None))
        self.is_stateful = callable(getattr(backend, "begin", None)) and callable(getattr(backend, "step", None))
        self.is_object = self.has_run or self.is_stateful
        if not self.is_object and not callable(backend):
            raise TypeError(
                f"a backend is a callable decode(inputs) -> o | (o, lse), an object with run(inputs, outputs), or "
                f"one with begin(sequence) and step(inputs, outputs); got {type(backend).__qualname__}"
            )
        default_name = getattr(backend, "__qualname__", None) or type(backend).__qualname__
        module = getattr(backend, "__module__", None)
        if module and not self.is_object:
            default_name = f"{module}:{default_name}"
        self.name = str(getattr(backend, "name", None) or default_name)
        self.version = str(getattr(backend, "version", "") or "")
        self.lse_base = getattr(backend, "lse_base", "natural")
        if self.lse_base not in _capi.LSE_BASES:
            raise ValueError(f"backend {self.name}: lse_base {self.lse_base!r} is not one of natural, log2")
        self.writes_lse = bool(getattr(backend, "writes_lse", True))
        self.p_rounding = getattr(backend, "p_rounding", "undeclared")
        if self.p_rounding not in _capi.P_ROUNDINGS:
            raise ValueError(
                f"backend {self.name}: p_rounding {self.p_rounding!r} is not one of {', '.join(_capi.P_ROUNDINGS)}"
            )
        self.output_device = getattr(backend, "device", None) if self.is_object else None
        self.device_name = getattr(backend, "device_name", None)
        if self.device_name is None and self.is_object:
            self.device_name = _device_description(self.output_device)
        self.path = str(getattr(backend, "path", "") or "")

    def call(self, inputs, staged):
        """One run of the backend: the callable's result, or None for an object (it wrote `staged`)."""
        if staged is None:
            return self.backend(inputs)
        if self.is_stateful and (not self.has_run or isinstance(inputs, SequenceInputs)):
            self.backend.step(inputs, staged)
        else:
            self.backend.run(inputs, staged)
        return None

    def supports(self, problem) -> str | None:
        supports = getattr(self.backend, "supports", None)
        if supports is None:
            return None
        reason = supports(problem)
        return None if reason is None else str(reason)


def adapt(backend) -> _Adapter:
    return backend if isinstance(backend, _Adapter) else _Adapter(backend)


def _split_result(result):
    """(o, lse or None) of what a callable backend returned."""
    if isinstance(result, tuple):
        if len(result) == 2:
            return result
        if len(result) == 1:
            return result[0], None
        raise TypeError(f"a tuple of {len(result)} items, a decode callable returns o or (o, lse)")
    return result, None


def collect(outcome: Outcome, b: _Adapter, staged, result) -> None:
    """Hands what the backend produced to `outcome`: the staged outputs (guards and poison
    checked), or the callable's result; outputs of the wrong kind, dtype or shape make it ERRORED
    naming what was returned and what the problem needs."""
    o = lse = None
    if staged is None:
        try:
            o, lse = _split_result(result)
        except TypeError as error:
            outcome.set_errored(f"backend returned {error}")
            return
    if b.device_name is None:  # a callable: its device is where its O lives
        outcome.set_backend(b.name, b.version, _device_description(o.device if is_torch_tensor(o) else None), b.path)
    try:
        if staged is not None:
            outcome.check_staged(staged, with_lse=b.writes_lse, lse_base=b.lse_base)
        else:
            outcome.set_o(o)
            if lse is not None:
                outcome.set_lse(lse, b.lse_base)
    except (TypeError, _capi.MlacheckError) as error:
        if isinstance(error, _capi.MlacheckError) and error.status != 1:
            raise  # not the backend's output: a harness failure
        message = str(error).split(": ", 1)[1] if str(error).startswith("mlacheck_outcome_set_") else str(error)
        outcome.set_errored(f"backend returned {message}")


def check(case: Case, backend, *, graph: bool = False, preparation_error: str | None = None) -> Verdict:
    """Runs `backend` on `case` and returns the harness's verdict (a report row). A decode
    sequence runs step by step (python/mlacheck/_sequence_run.py); `graph=True` replays its step 0
    from a CUDA graph for the later steps. `preparation_error`: what preparing the case ahead
    raised (the runner's Prefetch), reported where making its inputs would have raised it."""
    b = adapt(backend)
    if case.kind == "mla_decode" and not case.unsupported_reason and is_sequence(case):
        from ._sequence_run import check_sequence  # it builds on this module

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
    except Exception as error:  # noqa: BLE001 - any failure of the backend is its verdict
        outcome.set_errored(f"supports() raised {describe_exception(error)}")
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
        result = b.call(inputs, staged)
    except NotEnoughMemory as error:  # the case's cache pool does not fit this machine: not checked here
        outcome.set_skipped(str(error))
        return finish()
    except Exception as error:  # noqa: BLE001
        outcome.set_errored(f"backend raised {describe_exception(error)}")
        return finish()

    collect(outcome, b, staged, result)
    return finish()
