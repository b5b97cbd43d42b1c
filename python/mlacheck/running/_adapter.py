"""A Python backend of any of the three shapes (running/_backend.py's docstring) as one object, and
handing what it produced to the case's outcome: shared by one-step cases and sequences."""

from __future__ import annotations

import os
import sys
import traceback

from ..api import _capi
from ..api._case import Outcome
from ..api._sequence import SequenceInputs
from ..api._torch_interop import is_torch_tensor, torch_module
from ._backend_load import spec_of

# Libraries a backend calls into: a frame inside one of them is not where the backend went wrong.
_LIBRARY_PACKAGES = ("numpy", "torch", "triton", "mlacheck")


class SupportsContractError(TypeError):
    """supports() returned what is neither None (supported) nor a non-empty reason string."""


def _library_folders() -> list[str]:
    folders = []
    for name in _LIBRARY_PACKAGES:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            folders.append(os.path.dirname(os.path.abspath(file)) + os.sep)
    return folders


def describe_exception(error: BaseException) -> str:
    """The exception's line and where it was raised: the innermost frame of the backend's own code
    (not NumPy's, torch's, Triton's or mlacheck's), and the innermost frame when that differs."""
    line = traceback.format_exception_only(type(error), error)[-1].strip()
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        libraries = _library_folders()
        own = [f for f in frames
               if not f.filename.startswith("<") and not any(os.path.abspath(f.filename).startswith(d) for d in libraries)]
        place = own[-1] if own else frames[-1]
        line += f" (at {place.filename}:{place.lineno} in {place.name}"
        if place is not frames[-1]:
            line += f"; raised in {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}"
        line += ")"
    return line


def full_traceback(error: BaseException) -> str:
    """The whole traceback of `error`, as Python prints it (kept in Verdict.traceback)."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


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
        # The host-side hook an engine calls before every replay of a captured step (SGLang's
        # init_forward_metadata_replay_cuda_graph, FlashInfer's plan()): called before every step of
        # every route, outside any graph capture, with the step's inputs.
        hook = getattr(backend, "before_replay", None)
        if hook is not None and not callable(hook):
            raise TypeError(f"backend {self.name}: before_replay is {type(hook).__qualname__}, not a callable")
        self.before_replay = hook
        self.spec = spec_of(backend)

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
        if reason is None:
            return None
        if not isinstance(reason, str) or not reason.strip():
            # True/False are no reasons, and an empty string says nothing: a programming error of
            # the backend, reported on its row rather than guessed at (docs/python.md).
            raise SupportsContractError(
                f"backend {self.name}: supports() returned {reason!r}; it must return None when the "
                "backend runs the problem, or a non-empty string saying why it does not"
            )
        return reason


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


def _dataless(tensor) -> str:
    """"meta" or "fake" for a torch tensor that holds no data (a meta device tensor, or a
    FakeTensor of torch.compile's tracing), else ""."""
    if not is_torch_tensor(tensor):
        return ""
    if type(tensor).__name__ == "FakeTensor":
        return "fake"
    return "meta" if getattr(tensor, "is_meta", False) else ""


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
        for name, tensor in (("O", o), ("LSE", lse)):
            dataless = _dataless(tensor)
            if dataless:
                outcome.set_errored(f"backend returned a {dataless} tensor as {name}: it has no data to compare")
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
