"""A Python backend of any of the three shapes (running/_backend.py's docstring) as one object, and
handing what it produced to the case's outcome: shared by one-step cases and sequences."""

from __future__ import annotations

import traceback

from ..api import _capi
from ..api._case import Outcome
from ..api._sequence import SequenceInputs
from ..api._torch_interop import is_torch_tensor, torch_module


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
        # The host-side hook an engine calls before every replay of a captured step (SGLang's
        # init_forward_metadata_replay_cuda_graph, FlashInfer's plan()): called before every step of
        # every route, outside any graph capture, with the step's inputs.
        hook = getattr(backend, "before_replay", None)
        if hook is not None and not callable(hook):
            raise TypeError(f"backend {self.name}: before_replay is {type(hook).__qualname__}, not a callable")
        self.before_replay = hook

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
