"""One case of a plan: its problem, its inputs in backend_abi.h's layouts, outputs staged with
poison and guards, and the verdict on what a backend produced."""

from __future__ import annotations

import ctypes
import weakref
from types import SimpleNamespace

import numpy as np

from . import _capi
from ._outputs import StagedOutputs
from ._pool import PooledCache
from ._problem import Problem
from ._tensor import CODE_ARRAY_TYPES, Tensor
from ._torch_interop import is_torch_tensor, torch_to_host_codes
from ._verdict import Verdict, verdict_from_handle

INPUT_NAMES = ("q", "kv_cache", "block_table", "kv_lens", "q_lens", "qo_indptr", "kv_indptr")


class CaseInputs:
    """The inputs of an mla_decode case (backend_abi.h documents the layouts):
    q [total_q_tokens, heads, lk] of q_dtype (values are q_scale * code for fp8 queries),
    kv_cache [num_blocks, block_size, lk] of kv_dtype (values are kv_scale * code for fp8; a
    PooledCache for a case whose blocks start at a first_block),
    block_table [batch, max_blocks_per_request] int32 with -1 past each request's blocks, kv_lens and q_lens [batch], qo_indptr and kv_indptr [batch + 1].
    Each is an mlacheck.Tensor; `problem` is the case's Problem."""

    def __init__(self, problem: Problem, tensors: dict[str, Tensor]):
        self.problem = problem
        for name in INPUT_NAMES:
            setattr(self, name, tensors[name])

    def tensors(self) -> dict[str, Tensor]:
        return {name: getattr(self, name) for name in INPUT_NAMES}

    def as_torch(self, device=None) -> SimpleNamespace:
        """The same inputs as torch tensors (q and kv_cache in their dtypes, fp8 as torch's fp8 dtype
        where torch has one, else uint8 codes; indices int32) on `device`, plus `problem`. On the
        CPU they share memory with the NumPy codes, except a PooledCache's pool, which is made
        afresh on `device` at its full size (NotEnoughMemory when the machine lacks the room)."""
        tensors = {name: t.as_torch(device) for name, t in self.tensors().items()}
        return SimpleNamespace(problem=self.problem, **tensors)


def _host_tensor(value, name: str, problem: Problem, needed_dtype: str):
    """(array, dtype name) of what a backend returned for output `name`, on the host with strides
    kept. Raises TypeError naming what was returned and what the problem needs."""
    needs = f"{needed_dtype} {list(problem.o_shape if name == 'O' else problem.lse_shape)}"
    if isinstance(value, Tensor):
        return value.codes, value.dtype_name
    if is_torch_tensor(value):
        try:
            return torch_to_host_codes(value)
        except _capi.MlacheckError as e:
            raise TypeError(f"{name}: a tensor of {e}, the problem needs {needs}") from None
    if isinstance(value, np.ndarray):
        if value.dtype == np.float32:
            return value, "f32"
        if value.dtype == np.float16:
            return value.view(np.uint16), "f16"
        if value.dtype == np.uint16 and needed_dtype in ("bf16", "f16"):
            return value, needed_dtype  # codes of the dtype the problem names
        raise TypeError(f"{name}: a NumPy array of {value.dtype.name}, the problem needs {needs}")
    raise TypeError(
        f"{name}: a {type(value).__module__}.{type(value).__qualname__}, the problem needs {needs} as a torch "
        "tensor, a NumPy array or an mlacheck.Tensor"
    )


def _tensor_record(array: np.ndarray, dtype_name: str) -> _capi.TensorRecord:
    if array.ndim > 4:
        raise TypeError(f"an output of {array.ndim} dimensions")
    record = _capi.TensorRecord()
    record.data = array.ctypes.data
    record.dtype = _capi.DTYPE_CODES[dtype_name]
    record.ndim = array.ndim
    for i, (extent, stride) in enumerate(zip(array.shape, array.strides)):
        record.shape[i] = extent
        record.strides[i] = stride // array.itemsize
    return record


def _unwritten_flags(mask, name: str, shape: tuple[int, ...]):
    """A row-major uint8 copy of a caller's unwritten mask (True: never written), or None."""
    if mask is None:
        return None
    if is_torch_tensor(mask):
        mask = mask.detach().cpu().numpy()
    mask = np.asarray(mask)
    if mask.shape != tuple(shape):
        raise TypeError(f"{name} unwritten mask: shape {list(mask.shape)}, the problem needs {list(shape)}")
    return np.ascontiguousarray(mask != 0, dtype=np.uint8)


def record_view(t: _capi.TensorRecord) -> np.ndarray:
    """A NumPy view of the codes of a contiguous tensor the C API handed out (valid while the
    handle it came from is)."""
    shape = tuple(t.shape[i] for i in range(t.ndim))
    code_type = CODE_ARRAY_TYPES[_capi.DTYPE_NAMES[t.dtype]]
    count = int(np.prod(shape))
    if count == 0:
        return np.empty(shape, dtype=code_type)
    buffer = (ctypes.c_char * (count * np.dtype(code_type).itemsize)).from_address(t.data)
    return np.frombuffer(buffer, dtype=code_type, count=count).reshape(shape)


def _copied_tensor(t: _capi.TensorRecord) -> Tensor:
    """A copy of a contiguous tensor the C API handed out: the arrays outlive the case and a backend
    may write into them."""
    return Tensor(record_view(t).copy(), _capi.DTYPE_NAMES[t.dtype])


def read_problem(case_pointer: int) -> Problem:
    """The Problem of an opened C case (mla_decode or oracle self-check)."""
    record = ctypes.POINTER(_capi.MlaProblemRecord)()
    _capi.call("mlacheck_case_problem", case_pointer, ctypes.byref(record))
    if record.contents.struct_size != ctypes.sizeof(_capi.MlaProblemRecord):
        raise _capi.MlacheckError(
            f"the library's mlacheck_mla_problem has {record.contents.struct_size} bytes, this package's "
            f"{ctypes.sizeof(_capi.MlaProblemRecord)}: use the package and the library of one build"
        )
    fill = ctypes.c_char_p()
    _capi.call("mlacheck_case_fill", case_pointer, ctypes.byref(fill))
    return Problem.from_record(record.contents, _capi.text(fill.value))


class Outcome:
    """What a backend did with one case, collected for the harness's verdict. Built by
    Case.judge and mlacheck.check; use those."""

    def __init__(self, case: "Case"):
        self._case = case
        self._case_handle = case._handle()  # the C outcome points at this C case: keep it alive
        pointer = ctypes.c_void_p()
        _capi.call("mlacheck_outcome_new", self._case_handle.pointer, ctypes.byref(pointer))
        self._pointer = pointer.value
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_outcome_free, self._pointer)

    def set_backend(self, name=None, version=None, device=None, path=None) -> None:
        _capi.call(
            "mlacheck_outcome_set_backend",
            self._pointer,
            _capi.cstr(name),
            _capi.cstr(version),
            _capi.cstr(device),
            _capi.cstr(path),
        )

    def set_p_rounding(self, p_rounding: str) -> None:
        """Where the backend's kernel rounds P: one of _capi.P_ROUNDINGS (docs/tolerance.md)."""
        if p_rounding not in _capi.P_ROUNDINGS:
            raise ValueError(f"p_rounding {p_rounding!r} is not one of {', '.join(_capi.P_ROUNDINGS)}")
        _capi.call("mlacheck_outcome_set_p_rounding", self._pointer, _capi.P_ROUNDINGS[p_rounding])

    def set_times(self, device_ms: float, wall_ms: float) -> None:
        _capi.call("mlacheck_outcome_set_times", self._pointer, device_ms, wall_ms)

    def set_skipped(self, reason: str, kind: str = "unsupported") -> None:
        """SKIPPED with a human `reason` and a typed `kind` (docs/report-columns.md, skip_reason):
        "unsupported", "not_enough_memory", "no_device" or "not_checked_by_policy"."""
        _capi.call("mlacheck_outcome_set_skipped", self._pointer, _capi.cstr(reason))
        _capi.call("mlacheck_outcome_set_skip_reason", self._pointer, _capi.cstr(kind))

    def set_errored(self, reason: str, kind: str = "backend_exception") -> None:
        """ERRORED with a human `reason` and a typed `kind` (error_kind): "backend_exception",
        "crashed" or "timed_out" (a worker running the case died or hung), "device_lost",
        "harness_error" or "backend_not_started"."""
        _capi.call("mlacheck_outcome_set_errored", self._pointer, _capi.cstr(reason))
        _capi.call("mlacheck_outcome_set_error_kind", self._pointer, _capi.cstr(kind))

    def set_lost(self, how: str, process: str, detail: str, limit_s: float = 0.0) -> None:
        """The case's process or device was lost (`how`: one of _capi.CASE_LOSSES): ERRORED with
        the reason `mlacheck run` writes for such a case."""
        _capi.call(
            "mlacheck_outcome_set_lost", self._pointer, _capi.CASE_LOSSES[how], _capi.cstr(process),
            _capi.cstr(detail), limit_s,
        )

    def set_o(self, value, unwritten=None) -> None:
        """Raises TypeError or MlacheckError (status 1) naming what was given vs needed."""
        problem = self._case.problem
        array, dtype_name = _host_tensor(value, "O", problem, problem.o_dtype)
        flags = _unwritten_flags(unwritten, "O", problem.o_shape)
        _capi.call(
            "mlacheck_outcome_set_o",
            self._pointer,
            ctypes.byref(_tensor_record(array, dtype_name)),
            None if flags is None else flags.ctypes.data,
        )

    def set_lse(self, value, base: str, unwritten=None) -> None:
        if base not in _capi.LSE_BASES:
            raise ValueError(f"lse_base {base!r} is not one of {', '.join(_capi.LSE_BASES)}")
        problem = self._case.problem
        array, dtype_name = _host_tensor(value, "LSE", problem, "f32")
        flags = _unwritten_flags(unwritten, "LSE", problem.lse_shape)
        _capi.call(
            "mlacheck_outcome_set_lse",
            self._pointer,
            ctypes.byref(_tensor_record(array, dtype_name)),
            _capi.LSE_BASES[base],
            None if flags is None else flags.ctypes.data,
        )

    def check_guards(self, name: str, allocation: np.ndarray, data_bytes: int) -> None:
        """The guards of a buffer laid out [guard | data_bytes | guard] (host bytes): a changed
        guard byte FAILS the case naming `name` and the side."""
        allocation = np.ascontiguousarray(allocation)
        _capi.call("mlacheck_outcome_check_guards", self._pointer, _capi.cstr(name), allocation.ctypes.data, data_bytes)

    def check_staged(self, outputs: StagedOutputs, with_lse: bool, lse_base: str) -> None:
        """Guards and poison of staged outputs: the allocations go to the harness whole."""
        o_buffer, lse_buffer = outputs.buffers()
        for buffer in (o_buffer, lse_buffer) if with_lse else (o_buffer,):
            allocation = np.ascontiguousarray(buffer.host_allocation())
            self.check_guards(buffer.name, allocation, buffer.data_bytes)
            g = (allocation.size - buffer.data_bytes) // 2
            data = allocation[g : g + buffer.data_bytes].view(CODE_ARRAY_TYPES[buffer.dtype_name])
            tensor = Tensor(data.reshape(buffer.shape), buffer.dtype_name)
            if buffer is o_buffer:
                self.set_o(tensor)
            else:
                self.set_lse(tensor, lse_base)

    def judge(self) -> Verdict:
        pointer = ctypes.c_void_p()
        _capi.call("mlacheck_outcome_judge", self._pointer, ctypes.byref(pointer))
        return verdict_from_handle(pointer.value)


def _first_block(repro: str) -> int:
    """The first_block of a canonical repro string (written only when it is not 0)."""
    for field in repro.split(":", 1)[-1].split(";"):
        key, _, value = field.partition("=")
        if key == "first_block":
            return int(value)
    return 0


class _CaseHandle:
    """One opened C case; the inputs and oracle outputs the harness makes for it live as long as
    this handle."""

    def __init__(self, plan_pointer: int, index: int, *, pointer: int | None = None):
        if pointer is None:
            opened = ctypes.c_void_p()
            _capi.call("mlacheck_case_open", plan_pointer, index, ctypes.byref(opened))
            pointer = opened.value
        self.pointer = pointer
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_case_free, self.pointer)

    @classmethod
    def adopt(cls, pointer: int) -> "_CaseHandle":
        """A handle of a case opened elsewhere (a Prefetch), whose freeing is now this handle's."""
        return cls(0, 0, pointer=pointer)


class Case:
    """One case of a plan. `op` is the op the library's registry names for it ("mla_decode",
    "kv_gather", ...: _capi.op_names()). `kind` is "oracle_self_check" for an oracle self-check (the
    oracle against its plain-loop twin; needs no backend), else the op: "mla_decode" (for the
    backend under test) or "kv_gather" (tests mlacheck's own gather kernels: SKIPPED, see
    `unsupported_reason`).

    Opening a case is cheap: its inputs and the oracle's outputs are made on first need and kept
    until release() (or until the case is dropped)."""

    def __init__(self, plan, index: int, handle: _CaseHandle | None = None):
        self._plan = plan  # release() reopens the case from it
        self._index = index
        self._case_handle = handle  # None: opened on first need
        self.id = self._string("mlacheck_case_id")
        self.repro = self._string("mlacheck_case_repro")
        kind = ctypes.c_int32()
        _capi.call("mlacheck_case_kind_of", self._pointer, ctypes.byref(kind))
        self.op = self._string("mlacheck_case_op")
        self.kind = "oracle_self_check" if kind.value == _capi.CASE_KIND_ORACLE_SELF_CHECK else self.op
        self.unsupported_reason = self._string("mlacheck_case_unsupported_reason")
        self._problem = None
        self._inputs = None

    def _handle(self) -> _CaseHandle:
        if self._case_handle is None:
            self._case_handle = _CaseHandle(self._plan._pointer, self._index)  # noqa: SLF001 - the plan's C handle
        return self._case_handle

    @property
    def _pointer(self) -> int:
        return self._handle().pointer

    def _string(self, function: str) -> str | None:
        value = ctypes.c_char_p()
        _capi.call(function, self._pointer, ctypes.byref(value))
        return _capi.text(value.value)

    def _adopt(self, handle: _CaseHandle) -> None:
        """Takes `handle` (this case, opened and prepared by a Prefetch) in place of its own."""
        self._inputs = None
        self._case_handle = handle

    def release(self) -> None:
        """Frees the inputs and oracle outputs made so far, here and in the harness (outcomes and
        input arrays still in use keep theirs); the next need makes them again, the same. The
        pytest plugin releases a parametrized test's case after the test, so a suite of many cases
        holds one case's inputs at a time."""
        self._inputs = None
        self._case_handle = None

    def timeout_s(self, base_s: float) -> float:
        """The watchdog's limit for this case, as `mlacheck run` sets it: `base_s` plus time for
        its oracle and kernels, growing with the case's work (plan/run_plan.hpp)."""
        limit = ctypes.c_double()
        _capi.call("mlacheck_case_timeout_s", self._pointer, float(base_s), ctypes.byref(limit))
        return limit.value

    @property
    def plan_kind(self) -> str:
        """The kind of the plan the case came from: "default", "scenarios", "properties" or "repro"."""
        return self._plan.kind

    @property
    def runs_backend(self) -> bool:
        """True for the cases a backend under test runs (mla_decode)."""
        return self.kind == "mla_decode"

    @property
    def problem(self) -> Problem:
        """The problem (mla_decode and oracle self-check cases)."""
        if self._problem is None:
            self._problem = read_problem(self._pointer)
        return self._problem

    def inputs(self) -> CaseInputs:
        """The inputs as NumPy code arrays (made on first call; later calls until release() return
        the same object, so a backend that writes into its inputs is seen by the next caller). A
        case whose blocks start at a first_block (a pool past 4 GiB) has a PooledCache as its
        kv_cache: the pool is made at its full size only where a backend asks for it (as_torch,
        codes)."""
        if self._inputs is None:
            record = _capi.MlaTensorsRecord()
            record.struct_size = ctypes.sizeof(_capi.MlaTensorsRecord)
            cache = _capi.CacheBlocksRecord()
            cache.struct_size = ctypes.sizeof(_capi.CacheBlocksRecord)
            whole = _first_block(self.repro) == 0  # a pool of the requests' size: handed out whole
            if whole:  # (by block would copy every block of the cache once more)
                _capi.call("mlacheck_case_inputs", self._pointer, ctypes.byref(record))
            else:
                _capi.call(
                    "mlacheck_case_inputs_by_block", self._pointer, ctypes.byref(record), ctypes.byref(cache)
                )
            tensors = {name: _copied_tensor(getattr(record, name)) for name in INPUT_NAMES if name != "kv_cache"}
            if whole:
                tensors["kv_cache"] = _copied_tensor(record.kv_cache)
            else:
                pool = record.kv_cache
                ids = np.array(cache.block_ids[: cache.count], dtype=np.int32)
                tensors["kv_cache"] = PooledCache(
                    _capi.DTYPE_NAMES[pool.dtype],
                    tuple(pool.shape[i] for i in range(pool.ndim)),
                    cache.first_block,
                    ids,
                    _copied_tensor(cache.blocks),
                )
            self._inputs = CaseInputs(self.problem, tensors)
        return self._inputs

    def expected(self) -> tuple[np.ndarray, np.ndarray]:
        """The oracle's (O, LSE) in float64, LSE in natural log (computed on first call)."""
        o = ctypes.POINTER(ctypes.c_double)()
        lse = ctypes.POINTER(ctypes.c_double)()
        count_o = ctypes.c_uint64()
        count_lse = ctypes.c_uint64()
        _capi.call(
            "mlacheck_case_expected",
            self._pointer,
            ctypes.byref(o),
            ctypes.byref(count_o),
            ctypes.byref(lse),
            ctypes.byref(count_lse),
        )
        p = self.problem
        o_array = np.ctypeslib.as_array(o, shape=(count_o.value,)).reshape(p.o_shape).copy()
        lse_array = np.ctypeslib.as_array(lse, shape=(count_lse.value,)).reshape(p.lse_shape).copy()
        return o_array, lse_array

    def empty_outputs(self, device=None) -> StagedOutputs:
        """O and LSE poisoned and guarded: NumPy code arrays when `device` is None, torch tensors on
        `device` otherwise. Pass them to judge() after the backend wrote into them."""
        return StagedOutputs(self.problem, device)

    def judge(
        self,
        o,
        lse=None,
        lse_base: str = "natural",
        *,
        backend: str = "python",
        version: str = "",
        device: str = "",
        path: str = "",
        wall_ms: float = 0.0,
        check_lse: bool = True,
        o_unwritten=None,
        lse_unwritten=None,
        p_rounding: str = "undeclared",
    ) -> Verdict:
        """The verdict on what a backend produced. `o` is O (a torch tensor, a NumPy array or an
        mlacheck.Tensor, in o_dtype, any strides), or the StagedOutputs from empty_outputs() (whose
        guards and poison are checked too; `check_lse=False` when the backend writes no LSE).
        `lse` (f32, natural log unless lse_base="log2") is compared when given. `o_unwritten` and
        `lse_unwritten` (boolean masks of the outputs' shapes) flag elements the backend knows it
        never wrote, beside those still holding the poison. `p_rounding` declares where the kernel
        rounds P ("undeclared", "f32", "bf16", "f16", "q_dtype", "mma_input"; docs/tolerance.md):
        declared, the tight rule and the kernel-faithful oracle judge. A wrong dtype or shape raises
        TypeError / MlacheckError naming what was given and what the problem needs."""
        outcome = Outcome(self)
        outcome.set_backend(backend, version, device, path)
        outcome.set_times(0.0, wall_ms)
        outcome.set_p_rounding(p_rounding)
        if isinstance(o, StagedOutputs):
            if o_unwritten is not None or lse_unwritten is not None:
                raise ValueError("staged outputs carry their own unwritten flags (the poison); pass no masks")
            outcome.check_staged(o, with_lse=check_lse, lse_base=lse_base)
        else:
            outcome.set_o(o, o_unwritten)
            if lse is not None:
                outcome.set_lse(lse, lse_base, lse_unwritten)
        return outcome.judge()

    def __repr__(self) -> str:
        return f"mlacheck.Case({self.id!r}, {self.kind})"
