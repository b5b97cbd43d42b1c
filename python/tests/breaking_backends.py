"""Backends that break their process on one case of a plan (the case whose id the test sets in
MLACHECK_TEST_BREAK_CASE), and pass every other case with the NumPy reference, or with the
backend MLACHECK_TEST_PASSING_BACKEND names ("module:attribute", e.g. torch_mla_decode:decode on
a GPU). `breaks_many` breaks each case MLACHECK_TEST_BREAKS names its own way
("sweep-1=segfault,sweep-2=abort,sweep-3=hang,sweep-4=illegal_address"): every way in one run.
Each is importable by name, as a worker process needs."""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy_backend


def _breaks(inputs) -> bool:
    return inputs.problem.name == os.environ.get("MLACHECK_TEST_BREAK_CASE")


def _passing(inputs):
    spec = os.environ.get("MLACHECK_TEST_PASSING_BACKEND")
    if not spec:
        return numpy_backend.decode(inputs)
    from mlacheck.running._backend_load import load_backend

    return load_backend(spec)(inputs)


def _backend(name, breaking):
    def decode(inputs):
        if _breaks(inputs):
            breaking()
        return _passing(inputs)

    decode.name = name
    decode.__qualname__ = decode.__name__ = name
    return decode


def _segfault():
    os.kill(os.getpid(), signal.SIGSEGV)


def _abort():
    os.abort()


def _exit_zero():
    os._exit(0)


def _exit_three():
    sys.exit(3)


def _hang():
    time.sleep(3600)


def _raise():
    raise RuntimeError("the kernel refused its launch")


def _device_assert():
    import torch

    x = torch.zeros(4, device="cuda")
    x[torch.tensor([1 << 20], device="cuda")] = 1.0  # out of bounds: a device-side assert, sticky
    torch.cuda.synchronize()


def _illegal_address():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def store_far(pointer):
        tl.store(pointer + (1 << 40), tl.load(pointer))  # 4 TiB past a 4-byte tensor

    x = torch.zeros(1, device="cuda")
    store_far[(1,)](x)
    torch.cuda.synchronize()


segfaults = _backend("segfaults", _segfault)
aborts = _backend("aborts", _abort)
exits_zero = _backend("exits_zero", _exit_zero)
exits_three = _backend("exits_three", _exit_three)
hangs = _backend("hangs", _hang)
raises = _backend("raises", _raise)
device_asserts = _backend("device_asserts", _device_assert)
illegal_address = _backend("illegal_address", _illegal_address)

_WAYS = {"segfault": _segfault, "abort": _abort, "exit_zero": _exit_zero, "exit_three": _exit_three, "hang": _hang,
         "raise": _raise, "device_assert": _device_assert, "illegal_address": _illegal_address}


def breaks_many(inputs):
    ways = dict(entry.split("=", 1) for entry in os.environ.get("MLACHECK_TEST_BREAKS", "").split(",") if entry)
    way = ways.get(inputs.problem.name)
    if way is not None:
        _WAYS[way]()
    return _passing(inputs)


breaks_many.name = "breaks_many"
