"""Outputs staged for a backend the way the harness stages its own: O and LSE each in one
allocation laid out [guard | data | guard], the data poisoned with a NaN code arithmetic does not
produce, the guards holding the harness's guard pattern. After the run the whole allocations go
back to the harness, which finds unwritten elements (still poison) and writes outside the data
(changed guard bytes) with the same code that checks its own device buffers."""

from __future__ import annotations

import ctypes
from math import prod

import numpy as np

from . import _capi
from ._tensor import CODE_ARRAY_TYPES, poison_code
from ._torch_interop import require_torch, torch_dtype_of

_guard: bytes | None = None


def guard_pattern() -> bytes:
    """The bytes of one guard (the same before and after a buffer)."""
    global _guard
    if _guard is None:
        size = ctypes.c_uint64()
        _capi.call("mlacheck_guard_bytes", ctypes.byref(size))
        buffer = (ctypes.c_uint8 * size.value)()
        _capi.call("mlacheck_guard_pattern", buffer, size.value)
        _guard = bytes(buffer)
    return _guard


class StagedBuffer:
    """One guarded, poisoned allocation and the view of its data a backend writes."""

    def __init__(self, name: str, dtype_name: str, shape: tuple[int, ...], device=None):
        self.name = name
        self.dtype_name = dtype_name
        self.shape = tuple(shape)
        code_type = np.dtype(CODE_ARRAY_TYPES[dtype_name])
        guard = np.frombuffer(guard_pattern(), dtype=np.uint8)
        g = guard.size
        self.data_bytes = prod(self.shape) * code_type.itemsize
        host = np.empty(2 * g + self.data_bytes, dtype=np.uint8)
        host[:g] = guard
        host[g + self.data_bytes :] = guard
        # The poison is a bit pattern (a NaN for floats): write it through an integer view.
        bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[code_type.itemsize]
        host[g : g + self.data_bytes].view(bits)[:] = poison_code(dtype_name)
        self.device = device
        self._pristine = host.copy()  # guards and poison, for reset()
        if device is None:
            self.allocation = host
            self.view = host[g : g + self.data_bytes].view(code_type).reshape(self.shape)
        else:
            torch = require_torch()
            self.allocation = torch.from_numpy(host).to(device)
            self.view = self.allocation[g : g + self.data_bytes].view(torch_dtype_of(dtype_name)).view(self.shape)

    def reset(self) -> None:
        """Writes the guards and the poison again, in place (the same allocation and view)."""
        if self.device is None:
            self.allocation[:] = self._pristine
        else:
            self.allocation.copy_(require_torch().from_numpy(self._pristine))

    def host_allocation(self) -> np.ndarray:
        """The whole allocation, guards included, as host bytes (copied back from a device)."""
        if self.device is None:
            return self.allocation
        torch = require_torch()
        if self.allocation.device.type == "cuda":
            torch.cuda.synchronize(self.allocation.device)
        return self.allocation.detach().cpu().numpy()


class StagedOutputs:
    """O [total_q_tokens, heads, kv_lora_rank] of o_dtype and LSE [total_q_tokens, heads] of f32,
    poisoned and guarded. With `device` None they are NumPy arrays of codes (bf16/f16 as uint16);
    with a torch device ("cpu", "cuda:0", ...) torch tensors of the dtype (torch.bfloat16, ...)
    that views into the guarded allocations. Write into `o` and `lse` in place."""

    def __init__(self, problem, device=None):
        self.problem = problem
        self.device = device
        self._o = StagedBuffer("o", problem.o_dtype, problem.o_shape, device)
        self._lse = StagedBuffer("lse", "f32", problem.lse_shape, device)

    @property
    def o(self):
        return self._o.view

    @property
    def lse(self):
        return self._lse.view

    @property
    def o_dtype(self) -> str:
        return self.problem.o_dtype

    def reset(self) -> None:
        """Poisons O and LSE and rewrites their guards in place, for another run into the same
        tensors (the steps of a decode sequence)."""
        self._o.reset()
        self._lse.reset()

    def buffers(self) -> tuple[StagedBuffer, StagedBuffer]:
        return self._o, self._lse
