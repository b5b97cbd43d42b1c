"""The harness C API (include/mlacheck/harness_api.h) through ctypes: finding and loading
libmlacheck_capi.so, the records it shares with the backend ABI, and one checked call wrapper.

Nothing here is compiled against an interpreter: the library is plain C, so one build serves
every CPython that can load it (3.10 to 3.13).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

API_VERSION = 1  # MLACHECK_HARNESS_API_VERSION this package speaks
LIBRARY_NAME = "libmlacheck_capi.so"
ENV_VAR = "MLACHECK_CAPI"

# mlacheck_dtype
DTYPE_CODES = {"f32": 0, "bf16": 1, "f16": 2, "fp8_e4m3fn": 3, "fp8_e4m3fnuz": 4, "int32": 5}
DTYPE_NAMES = {code: name for name, code in DTYPE_CODES.items()}
# mlacheck_plan_kind
PLAN_KINDS = {"default": 0, "scenarios": 1, "properties": 2}
# mlacheck_case_kind
# mlacheck_case_kind's one value that is no op: a case's op comes from the library (op_names(),
# mlacheck_case_op), never from a list kept here.
CASE_KIND_ORACLE_SELF_CHECK = 2
# mlacheck_lse_base
LSE_BASES = {"natural": 0, "log2": 1}
# Where a kernel rounds P (mlacheck_backend_v1.p_dtype codes; docs/tolerance.md)
P_ROUNDINGS = {"undeclared": -1, "q_dtype": -2, "mma_input": -3, "f32": 0, "bf16": 1, "f16": 2}
# mlacheck_case_loss: how a case run in a worker process was lost (harness/lost_case.hpp words it)
CASE_LOSSES = {"process_died": 1, "timed_out": 2, "device_lost": 3}
# mlacheck_path_hint
PATH_HINTS = {0: "auto", 1: "persistent", 2: "split_kv"}


class MlacheckError(RuntimeError):
    """A call into the harness failed; the message names the function and what was wrong."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status


class MlaProblemRecord(ctypes.Structure):
    """mlacheck_mla_problem of backend_abi.h."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("repro", ctypes.c_char_p),
        ("total_heads", ctypes.c_int32),
        ("tp", ctypes.c_int32),
        ("tp_rank", ctypes.c_int32),
        ("kv_lora_rank", ctypes.c_int32),
        ("rope_dim", ctypes.c_int32),
        ("scale", ctypes.c_double),
        ("block_size", ctypes.c_int32),
        ("num_blocks", ctypes.c_int32),
        ("q_dtype", ctypes.c_int32),
        ("kv_dtype", ctypes.c_int32),
        ("o_dtype", ctypes.c_int32),
        ("kv_scale", ctypes.c_float),
        ("path", ctypes.c_int32),
        ("num_splits", ctypes.c_int32),
        ("seed", ctypes.c_uint64),
        ("heads", ctypes.c_int32),
        ("lk", ctypes.c_int32),
        ("batch", ctypes.c_int32),
        ("total_q_tokens", ctypes.c_int32),
        ("total_kv_tokens", ctypes.c_int64),
        ("max_q_len", ctypes.c_int32),
        ("max_kv_len", ctypes.c_int32),
        ("max_blocks_per_request", ctypes.c_int32),
        ("kv_lens", ctypes.POINTER(ctypes.c_int32)),
        ("q_lens", ctypes.POINTER(ctypes.c_int32)),
        ("q_scale", ctypes.c_float),
    ]


class TensorRecord(ctypes.Structure):
    """mlacheck_tensor of backend_abi.h: shape and strides in elements."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.c_int64 * 4),
        ("strides", ctypes.c_int64 * 4),
    ]


class MlaTensorsRecord(ctypes.Structure):
    """mlacheck_mla_tensors of backend_abi.h."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("q", TensorRecord),
        ("kv_cache", TensorRecord),
        ("block_table", TensorRecord),
        ("kv_lens", TensorRecord),
        ("q_lens", TensorRecord),
        ("qo_indptr", TensorRecord),
        ("kv_indptr", TensorRecord),
        ("o", TensorRecord),
        ("lse", TensorRecord),
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_uint64),
    ]


class CacheBlocksRecord(ctypes.Structure):
    """mlacheck_cache_blocks of harness_api.h: the pool blocks a case's requests read."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("first_block", ctypes.c_int32),
        ("count", ctypes.c_int64),
        ("block_ids", ctypes.POINTER(ctypes.c_int32)),
        ("blocks", TensorRecord),
    ]


class SequenceInfoRecord(ctypes.Structure):
    """mlacheck_sequence_info of harness_api.h: a decode sequence's steps and its sizes."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("steps", ctypes.c_int32),
        ("batch", ctypes.c_int32),
        ("joins", ctypes.POINTER(ctypes.c_int32)),
        ("leaves", ctypes.POINTER(ctypes.c_int32)),
        ("max_blocks_per_request", ctypes.c_int32),
        ("max_kv_len", ctypes.c_int32),
    ]


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_STR = ctypes.c_char_p
_PSTR = ctypes.POINTER(ctypes.c_char_p)

# name: argument types; every function returns mlacheck_status unless listed in _OTHER_RESULTS.
_SIGNATURES = {
    "mlacheck_harness_api_version": [],
    "mlacheck_last_error": [],
    "mlacheck_plan_open": [ctypes.c_int32, ctypes.c_uint64, ctypes.c_int32, _STR, _PP],
    "mlacheck_plan_open_repro": [_STR, _PP],
    "mlacheck_plan_open_space": [ctypes.c_int32, ctypes.c_uint64, ctypes.c_int32, _STR, _STR, _PP],
    "mlacheck_plan_open_tier": [_STR, _STR, _PP],
    "mlacheck_plan_open_file": [_STR, _STR, _PP],
    "mlacheck_plan_space": [_P, _PSTR, _PSTR],
    "mlacheck_space_describe": [_STR, _PSTR, _PSTR],
    "mlacheck_report_set_space": [_P, _STR],
    "mlacheck_plan_set_known_bugs": [_P, _STR],
    "mlacheck_plan_free": [_P],
    "mlacheck_plan_size": [_P, ctypes.POINTER(ctypes.c_int64)],
    "mlacheck_case_open": [_P, ctypes.c_int64, _PP],
    "mlacheck_case_free": [_P],
    "mlacheck_case_id": [_P, _PSTR],
    "mlacheck_case_repro": [_P, _PSTR],
    "mlacheck_case_kind_of": [_P, ctypes.POINTER(ctypes.c_int32)],
    "mlacheck_case_op": [_P, _PSTR],
    "mlacheck_op_names": [_PSTR],
    "mlacheck_case_unsupported_reason": [_P, _PSTR],
    "mlacheck_case_problem": [_P, ctypes.POINTER(ctypes.POINTER(MlaProblemRecord))],
    "mlacheck_case_fill": [_P, _PSTR],
    "mlacheck_case_inputs": [_P, ctypes.POINTER(MlaTensorsRecord)],
    "mlacheck_case_inputs_by_block": [_P, ctypes.POINTER(MlaTensorsRecord), ctypes.POINTER(CacheBlocksRecord)],
    "mlacheck_case_expected": [
        _P,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
        ctypes.POINTER(ctypes.c_uint64),
    ],
    "mlacheck_prefetch_open": [_P, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, _PP],
    "mlacheck_prefetch_next": [_P, _PP, _PSTR],
    "mlacheck_prefetch_free": [_P],
    "mlacheck_case_sequence": [_P, ctypes.POINTER(SequenceInfoRecord)],
    "mlacheck_sequence_step_open": [_P, _PP],
    "mlacheck_case_written_rows": [_P, ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)), ctypes.POINTER(TensorRecord)],
    "mlacheck_sequence_judge": [_P, _PP, ctypes.c_int64, _PP],
    "mlacheck_outcome_new": [_P, _PP],
    "mlacheck_outcome_free": [_P],
    "mlacheck_outcome_set_backend": [_P, _STR, _STR, _STR, _STR],
    "mlacheck_outcome_set_times": [_P, ctypes.c_double, ctypes.c_double],
    "mlacheck_outcome_set_p_rounding": [_P, ctypes.c_int32],
    "mlacheck_outcome_set_skipped": [_P, _STR],
    "mlacheck_outcome_set_errored": [_P, _STR],
    "mlacheck_outcome_set_skip_reason": [_P, _STR],
    "mlacheck_outcome_set_error_kind": [_P, _STR],
    "mlacheck_outcome_set_o": [_P, ctypes.POINTER(TensorRecord), _P],
    "mlacheck_outcome_set_lse": [_P, ctypes.POINTER(TensorRecord), ctypes.c_int32, _P],
    "mlacheck_outcome_check_guards": [_P, _STR, _P, ctypes.c_uint64],
    "mlacheck_outcome_judge": [_P, _PP],
    "mlacheck_verdict_free": [_P],
    "mlacheck_verdict_state": [_P, _PSTR],
    "mlacheck_verdict_is_failure": [_P, ctypes.POINTER(ctypes.c_int32)],
    "mlacheck_verdict_csv": [_P, _PSTR, _PSTR],
    "mlacheck_verdict_disposition": [_P, _PSTR, _PSTR, _PSTR, _PSTR],
    "mlacheck_verdict_from_csv": [_STR, _STR, _PP],
    "mlacheck_case_timeout_s": [_P, ctypes.c_double, ctypes.POINTER(ctypes.c_double)],
    "mlacheck_outcome_set_lost": [_P, ctypes.c_int32, _STR, _STR, ctypes.c_double],
    "mlacheck_shrink_run": [_STR, ctypes.c_int32, ctypes.c_double, _P, _P, _PP],
    "mlacheck_shrink_free": [_P],
    "mlacheck_shrink_summary": [_P, _PSTR, _PSTR, _PSTR, _PSTR],
    "mlacheck_shrink_counts": [_P, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32),
                               ctypes.POINTER(ctypes.c_double)],
    "mlacheck_shrink_step": [_P, ctypes.c_int32, _PSTR, _PSTR],
    "mlacheck_shrink_verdict": [_P, ctypes.c_int32, _PP],
    "mlacheck_report_open": [_STR, _PP],
    "mlacheck_report_append": [_P, _P],
    "mlacheck_report_finish": [_P, _STR],
    "mlacheck_report_free": [_P],
    "mlacheck_report_merge": [_PSTR, ctypes.c_int64, _STR, _STR, ctypes.POINTER(ctypes.c_int64)],
    "mlacheck_dtype_bytes": [ctypes.c_int32, ctypes.POINTER(ctypes.c_uint32)],
    "mlacheck_poison_word": [ctypes.c_int32, ctypes.POINTER(ctypes.c_uint32)],
    "mlacheck_guard_bytes": [ctypes.POINTER(ctypes.c_uint64)],
    "mlacheck_guard_pattern": [_P, ctypes.c_uint64],
    "mlacheck_decode": [ctypes.c_int32, _P, ctypes.c_uint64, _P],
    "mlacheck_encode": [ctypes.c_int32, _P, ctypes.c_uint64, _P],
}
_OTHER_RESULTS = {
    "mlacheck_harness_api_version": ctypes.c_uint32,
    "mlacheck_last_error": ctypes.c_char_p,
    "mlacheck_plan_free": None,
    "mlacheck_case_free": None,
    "mlacheck_prefetch_free": None,
    "mlacheck_outcome_free": None,
    "mlacheck_verdict_free": None,
    "mlacheck_report_free": None,
    "mlacheck_shrink_free": None,
}


def _candidates() -> list[tuple[str, Path]]:
    """Where the library may be, in the order tried, each with where the path came from."""
    found = []
    env = os.environ.get(ENV_VAR)
    if env:
        found.append((f"${ENV_VAR}", Path(env)))
        return found  # an explicit choice is never second-guessed
    package_dir = Path(__file__).resolve().parent.parent  # the package folder, above this room
    found.append(("next to the package", package_dir / LIBRARY_NAME))
    try:
        # Written by CMake into a build tree's copy of the package (an absolute path) and into an
        # installed copy (a path relative to the package).
        from .. import _paths

        recorded = Path(os.path.normpath(package_dir / _paths.CAPI_LIBRARY))
        found.append(("the path recorded by the build or install", recorded))
    except ImportError:
        pass
    return found


def _load() -> ctypes.CDLL:
    tried = []
    for origin, path in _candidates():
        if path.is_file():
            lib = ctypes.CDLL(str(path))
            break
        tried.append(f"{path} ({origin})")
    else:
        raise MlacheckError(
            f"cannot find {LIBRARY_NAME}; tried: {'; '.join(tried)}. Build it (the mlacheck_capi target) and set "
            f"{ENV_VAR} to its path, or import mlacheck from a build tree's python/ folder"
        )
    for name, args in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = _OTHER_RESULTS.get(name, ctypes.c_int)
    version = lib.mlacheck_harness_api_version()
    if version != API_VERSION:
        raise MlacheckError(
            f"{lib._name} speaks harness API version {version}; this package speaks {API_VERSION}: "
            "use the package and the library of one build"
        )
    return lib


_lib: ctypes.CDLL | None = None


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use, so importing mlacheck never fails)."""
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def call(name: str, *args) -> None:
    """Calls a status-returning function; a failure raises MlacheckError with the library's message."""
    status = getattr(lib(), name)(*args)
    if status != 0:
        message = lib().mlacheck_last_error().decode("utf-8", "replace")
        raise MlacheckError(message or f"{name} failed with status {status}", status)


def op_names() -> list[str]:
    """Every op the library's operation registry holds, in registry order."""
    names = ctypes.c_char_p()
    call("mlacheck_op_names", ctypes.byref(names))
    return [name.strip() for name in (text(names.value) or "").split(",")]


def text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "replace")


def cstr(value: str | None) -> bytes | None:
    return None if value is None else value.encode("utf-8")


def library_path() -> str:
    """The path of the loaded library, for messages and docs."""
    return lib()._name
