"""Decode sequences (docs/design.md "Decode sequences", UPSTREAM R5): `steps` decode steps over one
cache pool, run the way an engine runs them. The harness's host model writes the cache between
steps as an engine's block manager and KV writer do (requests join and leave, their slots padded
rows before and after; a joiner gets a departed request's blocks, stale tokens and all); here those
writes go into buffers that live for the whole sequence, so a backend sees every step's inputs in
the same tensors, their contents updated in place, and each step is judged as a one-step case.

`Sequence` describes a sequence (what `begin(sequence)` receives), `SequenceInputs` holds its
buffers, `SequenceStep` is one step as the harness opened it."""

from __future__ import annotations

import ctypes
import dataclasses
import weakref
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from . import _capi
from ._case import read_problem, record_view
from ._outputs import guard_pattern
from ._pool import NotEnoughMemory, host_available_bytes, usable_bytes, device_free_bytes, is_out_of_memory
from ._problem import Problem
from ._tensor import CODE_ARRAY_TYPES, Tensor, poison_code
from ._torch_interop import codes_as_torch, require_torch, torch_dtype_of

# The metadata tensors, updated in place every step (kv_cache is written row by row).
METADATA_NAMES = ("q", "block_table", "kv_lens", "q_lens", "qo_indptr", "kv_indptr")

# Integer types of each storage width: the pool is filled and written as bit patterns.
_NUMPY_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32}


@dataclass(frozen=True)
class Sequence:
    """A decode sequence as a backend's begin(sequence) receives it. `problem` is the sequence's
    (kv_lens: each request's cached tokens at its first step); `steps`; per request the step it
    joins and the step it leaves (`joins[r] <= step < leaves[r]`: active, else a padded row of
    kv_len 0); the sizes every step fits in: `max_kv_len` (the most tokens a request reaches),
    `max_blocks_per_request` (the block table's columns for the whole sequence). The batch, the
    query tokens, the pool's blocks and every dtype are the same at every step. A one-step case
    is a sequence of one step."""

    id: str
    repro: str
    problem: Problem
    steps: int
    joins: tuple[int, ...]
    leaves: tuple[int, ...]
    max_kv_len: int
    max_blocks_per_request: int


def sequence_of(case) -> Sequence:
    """The Sequence of an mla_decode case (one step for a one-step case)."""
    info = _capi.SequenceInfoRecord()
    info.struct_size = ctypes.sizeof(_capi.SequenceInfoRecord)
    _capi.call("mlacheck_case_sequence", case._pointer, ctypes.byref(info))  # noqa: SLF001 - the case's C handle
    return Sequence(
        id=case.id,
        repro=case.repro,
        problem=case.problem,
        steps=info.steps,
        joins=tuple(info.joins[i] for i in range(info.batch)),
        leaves=tuple(info.leaves[i] for i in range(info.batch)),
        max_kv_len=info.max_kv_len,
        max_blocks_per_request=info.max_blocks_per_request,
    )


def is_sequence(case) -> bool:
    """True for an mla_decode case of more than one step."""
    return case.kind == "mla_decode" and sequence_of(case).steps > 1


class _StepHandle:
    def __init__(self, pointer: int):
        self.pointer = pointer
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_case_free, pointer)


class SequenceStep:
    """Step `index` of a sequence as the harness opened it: a one-step case whose problem is the
    step's and whose id and repro are the sequence's (Outcome takes it as it takes a Case)."""

    def __init__(self, case, index: int):
        pointer = ctypes.c_void_p()
        _capi.call("mlacheck_sequence_step_open", case._pointer, ctypes.byref(pointer))  # noqa: SLF001
        self._step_handle = _StepHandle(pointer.value)
        self.index = index
        self.id = case.id
        # A step alone replays nothing (its cache is the sequence's so far): its repro is the sequence's.
        self.problem = dataclasses.replace(read_problem(pointer.value), repro=case.repro)

    def _handle(self) -> _StepHandle:
        return self._step_handle

    @property
    def _pointer(self) -> int:
        return self._step_handle.pointer

    def metadata(self) -> dict[str, np.ndarray]:
        """The step's q and index tensors as views of the harness's arrays (valid while the step is)."""
        record = _capi.MlaTensorsRecord()
        record.struct_size = ctypes.sizeof(_capi.MlaTensorsRecord)
        cache = _capi.CacheBlocksRecord()
        cache.struct_size = ctypes.sizeof(_capi.CacheBlocksRecord)
        _capi.call("mlacheck_case_inputs_by_block", self._pointer, ctypes.byref(record), ctypes.byref(cache))
        return {name: record_view(getattr(record, name)) for name in METADATA_NAMES}

    def written_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(slots int64 [n], rows [n, lk] of kv_dtype codes): the cache rows the step wrote."""
        slots = ctypes.POINTER(ctypes.c_int64)()
        rows = _capi.TensorRecord()
        _capi.call("mlacheck_case_written_rows", self._pointer, ctypes.byref(slots), ctypes.byref(rows))
        count = rows.shape[0]
        slot_array = np.ctypeslib.as_array(slots, shape=(count,)).copy() if count else np.empty(0, np.int64)
        return slot_array, record_view(rows).copy()


class _GuardedPool:
    """The cache pool [num_blocks, block_size, lk] of kv_dtype in one allocation laid out
    [guard | pool | guard] (the guards as the harness writes them, so a write past the pool is
    found), every slot holding kv_dtype's poison code until a step writes it. On the host (NumPy
    codes) or on a torch device."""

    def __init__(self, shape: tuple[int, int, int], dtype_name: str, device=None):
        self.shape = shape
        self.dtype_name = dtype_name
        self.device = device
        itemsize = np.dtype(CODE_ARRAY_TYPES[dtype_name]).itemsize
        self.data_bytes = int(np.prod(shape, dtype=np.int64)) * itemsize
        guard = np.frombuffer(guard_pattern(), dtype=np.uint8)
        self._g = guard.size
        total = 2 * self._g + self.data_bytes
        code = poison_code(dtype_name)
        if device is None:
            free = host_available_bytes()
            if free is not None and total > usable_bytes(free, host=True):
                raise NotEnoughMemory(total, free, "host")
            try:
                self.allocation = np.empty(total, dtype=np.uint8)
            except MemoryError as error:
                raise NotEnoughMemory(total, host_available_bytes(), "host", str(error)) from error
            self.allocation[: self._g] = guard
            self.allocation[self._g + self.data_bytes :] = guard
            data = self.allocation[self._g : self._g + self.data_bytes]
            data.view(_NUMPY_BITS[itemsize])[:] = code
            self.view = data.view(CODE_ARRAY_TYPES[dtype_name]).reshape(shape)
            self._rows = data.view(_NUMPY_BITS[itemsize]).reshape(-1, shape[2])
            return
        torch = require_torch()
        where = torch.device(device)
        free = device_free_bytes(torch, where)
        host = where.type == "cpu"
        if free is not None and total > usable_bytes(free, host=host):
            raise NotEnoughMemory(total, free, "host" if host else str(where))
        try:
            self.allocation = torch.empty(total, dtype=torch.uint8, device=where)
            guard_tensor = torch.from_numpy(guard.copy()).to(where)
            self.allocation[: self._g] = guard_tensor
            self.allocation[self._g + self.data_bytes :] = guard_tensor
        except Exception as error:  # noqa: BLE001 - only running out of memory is translated
            if not is_out_of_memory(torch, error):
                raise
            raise NotEnoughMemory(total, device_free_bytes(torch, where), str(where), str(error)) from error
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[itemsize]
        data = self.allocation[self._g : self._g + self.data_bytes]
        signed = code if itemsize == 1 or code < 1 << (8 * itemsize - 1) else code - (1 << (8 * itemsize))
        data.view(bits).fill_(signed)
        self._rows = data.view(bits).view(-1, shape[2])
        self._bits = bits
        dtype = torch_dtype_of(dtype_name)
        self.view = data.view(dtype if dtype is not None else torch.uint8).view(shape)

    def write(self, slots: np.ndarray, rows: np.ndarray) -> None:
        """Writes cache rows `rows` ([n, lk] codes) at pool slots `slots` (block * block_size + offset)."""
        if slots.size == 0:
            return
        if self.device is None:
            self._rows[slots] = rows.view(self._rows.dtype)
            return
        torch = require_torch()
        where = self.allocation.device
        signed = rows.view({1: np.uint8, 2: np.int16, 4: np.int32}[rows.itemsize])
        self._rows.index_copy_(0, torch.from_numpy(slots).to(where), torch.from_numpy(signed).to(where))

    def take_guards(self) -> np.ndarray:
        """The two guards, front then back, as host bytes; then writes them afresh, so the next
        reading shows only what was written after this one."""
        front = self.allocation[: self._g]
        back = self.allocation[self._g + self.data_bytes :]
        guard = np.frombuffer(guard_pattern(), dtype=np.uint8)
        if self.device is None:
            taken = np.concatenate([front, back])
            front[:] = guard
            back[:] = guard
            return taken
        torch = require_torch()
        taken = torch.cat([front, back]).cpu().numpy()
        pattern = torch.from_numpy(guard.copy()).to(self.allocation.device)
        front.copy_(pattern)
        back.copy_(pattern)
        return taken


class SequenceInputs:
    """The inputs of a decode sequence, in buffers that live for the whole sequence: the same
    objects at every step, their contents updated in place before the step runs, as an engine
    updates the buffers a captured graph reads.

    `q` [total_q_tokens, heads, lk], `block_table` [batch, sequence.max_blocks_per_request] (-1
    past each request's blocks), `kv_lens`, `q_lens` [batch], `qo_indptr`, `kv_indptr` [batch + 1]
    are mlacheck.Tensors (NumPy codes); `kv_cache` the pool [num_blocks, block_size, lk] (made in
    host memory on first use; its guards are checked after every step). `problem` is the current
    step's Problem (kv_lens of the step, 0 for padded slots; max_blocks_per_request of the step,
    which the block table's width may exceed), `step` its index, `sequence` the Sequence,
    `written_slots` the pool slots the step wrote. `as_torch(device)` gives torch tensors on
    `device`: the same tensors at every step, updated in place."""

    def __init__(self, sequence: Sequence):
        self.sequence = sequence
        self.problem = sequence.problem
        self.step = -1
        self.written_slots = np.empty(0, dtype=np.int64)
        p = sequence.problem
        self._pool_shape = (p.num_blocks, p.block_size, p.lk)
        self._writes: list[tuple[np.ndarray, np.ndarray]] = []  # every step's written rows, in order
        self._host_pool: _GuardedPool | None = None
        self._kv_cache: Tensor | None = None
        # Per device: (the namespace handed to backends, its pool, the harness's own tensors). The
        # harness writes into its own tensors, never into what the namespace holds now: a backend may
        # rebind a name on the namespace (wrong_decode.py puts an expanded, zero-stride view there),
        # and a copy into that would write one element through many indices, or into the backend's
        # tensor instead of the buffer every step shares.
        self._mirrors: dict[str, tuple[SimpleNamespace, _GuardedPool, dict]] = {}
        shapes = {
            "q": ((p.total_q_tokens, p.heads, p.lk), p.q_dtype),
            "block_table": ((p.batch, max(1, sequence.max_blocks_per_request)), "int32"),
            "kv_lens": ((p.batch,), "int32"),
            "q_lens": ((p.batch,), "int32"),
            "qo_indptr": ((p.batch + 1,), "int32"),
            "kv_indptr": ((p.batch + 1,), "int32"),
        }
        for name, (shape, dtype_name) in shapes.items():
            setattr(self, name, Tensor(np.zeros(shape, dtype=CODE_ARRAY_TYPES[dtype_name]), dtype_name))
        self.block_table.codes.fill(-1)

    @property
    def kv_cache(self) -> Tensor:
        """The pool in host memory as NumPy codes (made on first use, then kept and written in place)."""
        if self._kv_cache is None:
            pool = _GuardedPool(self._pool_shape, self.sequence.problem.kv_dtype)
            for slots, rows in self._writes:
                pool.write(slots, rows)
            self._host_pool = pool
            self._kv_cache = Tensor(pool.view, pool.dtype_name)
        return self._kv_cache

    def tensors(self) -> dict[str, Tensor]:
        return {name: getattr(self, name) for name in (*METADATA_NAMES[:1], "kv_cache", *METADATA_NAMES[1:])}

    def as_torch(self, device=None) -> SimpleNamespace:
        """The inputs as torch tensors on `device` (dtypes as CaseInputs.as_torch), plus `problem`:
        one set per device, made on the first call and updated in place at every later step."""
        torch = require_torch()
        where = torch.device("cpu" if device is None else device)
        if where.type == "cuda" and where.index is None:
            where = torch.device("cuda", torch.cuda.current_device())
        key = str(where)
        if key not in self._mirrors:
            pool = _GuardedPool(self._pool_shape, self.sequence.problem.kv_dtype, where)
            for slots, rows in self._writes:
                pool.write(slots, rows)
            tensors = {name: getattr(self, name).as_torch(where) for name in METADATA_NAMES}
            tensors["kv_cache"] = pool.view
            self._mirrors[key] = (SimpleNamespace(), pool, tensors)
        namespace, _, tensors = self._mirrors[key]
        _rebind(namespace, self.problem, tensors)
        return namespace

    def pools(self) -> list[tuple[str, _GuardedPool]]:
        """Every pool made so far, named by where it lives."""
        made = [("host", self._host_pool)] if self._host_pool is not None else []
        return made + [(key, pool) for key, (_, pool, _) in self._mirrors.items()]

    def advance(self, step: SequenceStep) -> None:
        """Brings every buffer to `step` in place: its metadata, and the cache rows it wrote."""
        if step.index != self.step + 1:
            raise ValueError(f"step {step.index} given after step {self.step}: steps run in order")
        self.step = step.index
        self.problem = step.problem
        fresh = step.metadata()
        for name in METADATA_NAMES:
            host = getattr(self, name).codes
            if name == "block_table":
                width = fresh[name].shape[1]
                if width > host.shape[1]:
                    raise _capi.MlacheckError(
                        f"step {step.index}: a block table of {width} columns, the sequence's holds {host.shape[1]}"
                    )
                host.fill(-1)
                host[:, :width] = fresh[name]
            else:
                host[...] = fresh[name]
        slots, rows = step.written_rows()
        self._writes.append((slots, rows))
        self.written_slots = slots
        if self._host_pool is not None:
            self._host_pool.write(slots, rows)
        for namespace, pool, tensors in self._mirrors.values():
            pool.write(slots, rows)
            for name in METADATA_NAMES:
                mirror = tensors[name]
                host = getattr(self, name)
                if mirror.device.type != "cpu":  # a CPU mirror shares the host array's memory
                    mirror.copy_(codes_as_torch(host.codes, host.dtype_name))
            _rebind(namespace, self.problem, tensors)


def _rebind(namespace: SimpleNamespace, problem: Problem, tensors: dict) -> None:
    """Points `namespace` at the step's problem and the harness's tensors again, whatever a backend
    bound to its names since: every step sees the sequence's buffers."""
    namespace.problem = problem
    for name, tensor in tensors.items():
        setattr(namespace, name, tensor)
