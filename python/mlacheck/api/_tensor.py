"""Tensors as mlacheck hands them out: NumPy arrays of codes with their dtype named, decoded and
encoded with the harness's own codecs (core/dtype_convert.hpp through the C API)."""

from __future__ import annotations

import ctypes

import numpy as np

from . import _capi
from ._torch_interop import codes_as_torch

# The NumPy array type that holds the codes of each dtype.
CODE_ARRAY_TYPES = {
    "f32": np.float32,
    "bf16": np.uint16,
    "f16": np.uint16,
    "fp8_e4m3fn": np.uint8,
    "fp8_e4m3fnuz": np.uint8,
    "int32": np.int32,
}
STORAGE_DTYPES = ("f32", "bf16", "f16", "fp8_e4m3fn", "fp8_e4m3fnuz")


def _storage_code(dtype_name: str) -> int:
    if dtype_name not in STORAGE_DTYPES:
        raise ValueError(f"dtype {dtype_name!r} is not one of {', '.join(STORAGE_DTYPES)}")
    return _capi.DTYPE_CODES[dtype_name]


def decode(dtype_name: str, codes) -> np.ndarray:
    """float32 values of an array of `dtype_name` codes (same shape)."""
    code = _storage_code(dtype_name)
    codes = np.ascontiguousarray(codes, dtype=CODE_ARRAY_TYPES[dtype_name])
    values = np.empty(codes.shape, dtype=np.float32)
    _capi.call("mlacheck_decode", code, codes.ctypes.data, codes.size, values.ctypes.data)
    return values


def encode(dtype_name: str, values) -> np.ndarray:
    """Codes of `dtype_name` for float values: round to nearest even, fp8 saturating, as the
    harness encodes its own inputs."""
    code = _storage_code(dtype_name)
    values = np.ascontiguousarray(values, dtype=np.float32)
    codes = np.empty(values.shape, dtype=CODE_ARRAY_TYPES[dtype_name])
    _capi.call("mlacheck_encode", code, values.ctypes.data, values.size, codes.ctypes.data)
    return codes


def poison_code(dtype_name: str) -> int:
    """The code outputs of `dtype_name` are poisoned with (one element's code)."""
    word = ctypes.c_uint32()
    _capi.call("mlacheck_poison_word", _storage_code(dtype_name), ctypes.byref(word))
    width = np.dtype(CODE_ARRAY_TYPES[dtype_name]).itemsize
    return word.value & ((1 << (8 * width)) - 1)


class Tensor:
    """An input or output tensor: `codes` (a NumPy array: bf16/f16 as uint16 codes, fp8 as uint8
    codes, f32 as float32, indices as int32) and `dtype_name` ("bf16", "fp8_e4m3fn", "int32", ...)."""

    def __init__(self, codes: np.ndarray, dtype_name: str):
        expected = CODE_ARRAY_TYPES.get(dtype_name)
        if expected is None:
            raise ValueError(f"dtype {dtype_name!r} is not one of {', '.join(CODE_ARRAY_TYPES)}")
        if codes.dtype != expected:
            raise ValueError(f"{dtype_name} codes are held as {np.dtype(expected).name}, got {codes.dtype.name}")
        self.codes = codes
        self.dtype_name = dtype_name

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    def values(self) -> np.ndarray:
        """The values as float32 (codes decoded; NaN codes decode to NaN)."""
        if self.dtype_name == "int32":
            return self.codes.astype(np.float32)
        if self.dtype_name == "f32":
            return self.codes.copy()
        return decode(self.dtype_name, self.codes)

    def as_torch(self, device=None):
        """A torch tensor of this tensor's dtype (torch.bfloat16, torch.float8_e4m3fn where torch
        has it, else uint8 codes), sharing memory on the CPU; `device` copies it once."""
        return codes_as_torch(self.codes, self.dtype_name, device)

    def __repr__(self) -> str:
        return f"mlacheck.Tensor({self.dtype_name}, shape={list(self.shape)})"
