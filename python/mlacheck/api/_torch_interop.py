"""PyTorch, when present: views of mlacheck's code arrays as torch tensors without copies, and the
reverse for what a backend returns. torch is optional; every function here is called only after
`torch_module()` found it.
"""

from __future__ import annotations

import numpy as np

from ._capi import MlacheckError

_torch = None
_torch_checked = False


def torch_module():
    """torch, or None when it cannot be imported."""
    global _torch, _torch_checked
    if not _torch_checked:
        _torch_checked = True
        try:
            import torch

            _torch = torch
        except ImportError:
            _torch = None
    return _torch


def require_torch():
    torch = torch_module()
    if torch is None:
        raise MlacheckError("PyTorch is not installed in this interpreter; use the NumPy arrays instead")
    return torch


def is_torch_tensor(value) -> bool:
    torch = torch_module()
    return torch is not None and isinstance(value, torch.Tensor)


def _fp8_dtype(torch, name: str):
    """torch's fp8 dtype for an mlacheck fp8 dtype, or None (torch < 2.1 has none; fnuz came later)."""
    return getattr(torch, {"fp8_e4m3fn": "float8_e4m3fn", "fp8_e4m3fnuz": "float8_e4m3fnuz"}[name], None)


def torch_dtype_of(name: str):
    """The torch dtype that holds mlacheck dtype `name` as values, or None when torch has none."""
    torch = require_torch()
    table = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "int32": torch.int32}
    if name in table:
        return table[name]
    return _fp8_dtype(torch, name)


def mlacheck_dtype_of_torch(dtype) -> str | None:
    """The mlacheck dtype name of a torch dtype, or None for dtypes mlacheck has no name for."""
    torch = require_torch()
    table = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16", torch.int32: "int32"}
    if dtype in table:
        return table[dtype]
    for name in ("fp8_e4m3fn", "fp8_e4m3fnuz"):
        fp8 = _fp8_dtype(torch, name)
        if fp8 is not None and dtype == fp8:
            return name
    return None


def codes_as_torch(codes: np.ndarray, name: str, device=None):
    """A torch view of a code array: bf16/f16 as torch.bfloat16/float16 (reinterpreting the
    uint16 codes through int16, which torch can share memory with), fp8 as torch's fp8 dtype when
    it has one, else uint8 codes. On the CPU no bytes are copied; another device gets one copy."""
    torch = require_torch()
    if codes.dtype == np.uint16:
        tensor = torch.from_numpy(codes.view(np.int16)).view(torch_dtype_of(name))
    elif codes.dtype == np.uint8:
        tensor = torch.from_numpy(codes)
        fp8 = _fp8_dtype(torch, name)
        if fp8 is not None:
            tensor = tensor.view(fp8)
    else:
        tensor = torch.from_numpy(codes)
    if device is not None and torch.device(device) != tensor.device:
        tensor = tensor.to(device)
    return tensor


def torch_to_host_codes(tensor) -> tuple[np.ndarray, str]:
    """(host array of codes or f32 values, mlacheck dtype name) of a torch tensor, strides kept.
    Raises MlacheckError naming the dtype when mlacheck has no name for it."""
    torch = require_torch()
    name = mlacheck_dtype_of_torch(tensor.dtype)
    if name is None:
        raise MlacheckError(f"torch dtype {tensor.dtype}")
    if tensor.device.type == "cuda":
        torch.cuda.synchronize(tensor.device)
    host = tensor.detach().cpu()
    if name in ("bf16", "f16"):
        array = host.view(torch.int16).numpy().view(np.uint16)
    elif name.startswith("fp8"):
        array = host.view(torch.uint8).numpy()
    else:
        array = host.numpy()
    return array, name
