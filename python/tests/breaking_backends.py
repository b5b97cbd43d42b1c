"""Backends that break their process on one case of a plan (the case at index BREAK_AT of the
plan's backend cases: a case id set by the test through MLACHECK_TEST_BREAK_CASE), and pass every
other case with the NumPy reference. Each is importable by name, as a worker process needs."""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy_backend


def _breaks(inputs) -> bool:
    return inputs.problem.name == os.environ.get("MLACHECK_TEST_BREAK_CASE")


def _backend(name, breaking):
    def decode(inputs):
        if _breaks(inputs):
            breaking()
        return numpy_backend.decode(inputs)

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


segfaults = _backend("segfaults", _segfault)
aborts = _backend("aborts", _abort)
exits_zero = _backend("exits_zero", _exit_zero)
exits_three = _backend("exits_three", _exit_three)
hangs = _backend("hangs", _hang)
raises = _backend("raises", _raise)
