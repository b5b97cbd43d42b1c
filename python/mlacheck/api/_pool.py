"""A cache pool handed out by block. A case whose requests' blocks start at a `first_block` (a pool
past 4 GiB, UPSTREAM R4) comes from the C API as the pool's shape and the blocks its requests read
(mlacheck_case_inputs_by_block), never as a whole pool in host memory. The pool is made where a
backend asks for it -- on a torch device by `as_torch(device)`, in host memory by `codes` -- at its
full size, every slot outside the requests' blocks holding kv_dtype's poison code (the NaN the
staging layer fills a pool with), so a kernel really indexes past 4 GiB and a wrong offset reads NaN.

Before allocating, the memory is checked by the rule of device/staging/staging_memory.hpp (host
memory against half of MemAvailable, device memory against nine tenths of the GPU's free memory);
a shortfall, or an out-of-memory error while allocating, raises NotEnoughMemory, which the runner
reports as a SKIPPED row: not checked on this machine."""

from __future__ import annotations

import numpy as np

from ._tensor import CODE_ARRAY_TYPES, Tensor, decode, poison_code
from ._torch_interop import require_torch, torch_dtype_of

NOT_ENOUGH_MEMORY = "not enough memory on this machine: "

# Integer types of each storage width: the pool is filled and written as bit patterns.
_NUMPY_BITS = {1: np.uint8, 2: np.int16, 4: np.int32}


class NotEnoughMemory(MemoryError):
    """The machine lacks the memory for a case's cache pool. `needed` and `free` are bytes (`free`
    None when unknown); the message starts with "not enough memory on this machine: "."""

    def __init__(self, needed: int, free: int | None, where: str, detail: str = ""):
        self.needed = needed
        self.free = free
        self.where = where
        if free is None:
            free_text = "how much is free is unknown"
        else:
            share = "half" if where == "host" else "nine tenths"
            free_text = f"{free >> 20} MiB are free (a case may use {share} of it)"
        super().__init__(
            f"{NOT_ENOUGH_MEMORY}the cache pool needs {needed} bytes (about {needed >> 20} MiB) of {where} memory, "
            f"{free_text}" + (f": {detail}" if detail else "")
        )


def host_available_bytes() -> int | None:
    """MemAvailable of /proc/meminfo in bytes, or None where there is none."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                key, value, *_ = line.split()
                if key == "MemAvailable:":
                    return int(value) * 1024
    except OSError:
        return None
    return None


def usable_bytes(free: int, host: bool) -> int:
    """What a case may take of `free` bytes: half of the host's (the rest of the process and other
    processes share it, and an over-committed host answers with the OOM killer, not an error),
    nine tenths of a GPU's (a tenth kept back for the runtime)."""
    return free // 2 if host else free // 10 * 9


def device_free_bytes(torch, device) -> int | None:
    """Free bytes where `device` allocates: the host's MemAvailable for the CPU, the GPU's free
    memory for CUDA (ROCm's torch reports as CUDA), None elsewhere (the allocation then decides)."""
    if device.type == "cpu":
        return host_available_bytes()
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return None


def is_out_of_memory(torch, error: BaseException) -> bool:
    """An allocation that failed for want of memory: MemoryError, torch's OutOfMemoryError
    (torch.cuda's, and torch's own where it has one), or the CPU allocator's RuntimeError."""
    kinds = [MemoryError]
    for owner in (torch, getattr(torch, "cuda", None)):
        kind = getattr(owner, "OutOfMemoryError", None)
        if isinstance(kind, type):
            kinds.append(kind)
    if isinstance(error, tuple(kinds)):
        return True
    text = str(error)
    return isinstance(error, RuntimeError) and ("not enough memory" in text or "out of memory" in text)


def _first_line(error: BaseException) -> str:
    """The first line of an allocation error's message, or its type when it has none."""
    lines = str(error).splitlines()
    return lines[0] if lines else type(error).__name__


class PooledCache:
    """kv_cache of a case handed out by block: the pool [num_blocks, block_size, lk] of kv_dtype
    (`shape`, `dtype_name`, `nbytes`), the descriptor's `first_block`, the pool blocks the requests
    read (`block_ids`, int32 ascending) and their codes (`blocks`, an mlacheck.Tensor
    [len(block_ids), block_size, lk]). Every other slot of the pool holds `fill_code`.

    `as_torch(device)` makes the pool on a torch device (a new tensor each call); `codes` makes it
    in host memory as NumPy codes (once, then kept with the inputs); `values()` decodes that. Each
    raises NotEnoughMemory when the machine lacks the room."""

    def __init__(self, dtype_name: str, shape: tuple[int, int, int], first_block: int, block_ids: np.ndarray,
                 blocks: Tensor):
        self.dtype_name = dtype_name
        self.shape = tuple(shape)
        self.first_block = first_block
        self.block_ids = block_ids
        self.blocks = blocks
        self.fill_code = poison_code(dtype_name)
        self._itemsize = np.dtype(CODE_ARRAY_TYPES[dtype_name]).itemsize
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self._itemsize
        self._codes: np.ndarray | None = None

    def _signed_fill(self) -> int:
        """fill_code as a value of the signed integer type of its width (torch has no uint16)."""
        bits = 8 * self._itemsize
        return self.fill_code if self._itemsize == 1 or self.fill_code < 1 << (bits - 1) else self.fill_code - (1 << bits)

    @property
    def codes(self) -> np.ndarray:
        """The whole pool as NumPy codes in host memory (made on first use, then kept)."""
        if self._codes is None:
            self._codes = self._host_pool()
        return self._codes

    def _host_pool(self) -> np.ndarray:
        free = host_available_bytes()
        if free is not None and self.nbytes > usable_bytes(free, host=True):
            raise NotEnoughMemory(self.nbytes, free, "host")
        bits = _NUMPY_BITS[self._itemsize]
        try:
            pool = np.empty(self.shape, dtype=bits)
            pool.fill(self._signed_fill())
        except MemoryError as error:
            raise NotEnoughMemory(self.nbytes, host_available_bytes(), "host", _first_line(error)) from error
        pool[self.block_ids] = self.blocks.codes.view(bits)
        return pool.view(CODE_ARRAY_TYPES[self.dtype_name])

    def values(self) -> np.ndarray:
        """The pool's values as float32 (codes decoded; the poison decodes to NaN)."""
        needed = self.nbytes // self._itemsize * 4 + (0 if self._codes is not None else self.nbytes)
        free = host_available_bytes()
        if free is not None and needed > usable_bytes(free, host=True):
            raise NotEnoughMemory(needed, free, "host", "the pool's codes and float32 values")
        if self.dtype_name == "f32":
            return self.codes.copy()
        return decode(self.dtype_name, self.codes)

    def as_torch(self, device=None):
        """The pool as a torch tensor on `device` (the CPU when None) of kv_dtype (fp8 as torch's fp8
        dtype where torch has one, else uint8 codes), allocated at its full size, filled with
        fill_code, the requests' blocks written at their block ids."""
        torch = require_torch()
        where = torch.device("cpu" if device is None else device)
        if where.type == "cuda" and where.index is None:
            where = torch.device("cuda", torch.cuda.current_device())
        free = device_free_bytes(torch, where)
        host = where.type == "cpu"
        if free is not None and self.nbytes > usable_bytes(free, host=host) and where.type == "cuda":
            # Blocks torch's caching allocator keeps (an earlier case's pool) count as taken in
            # the driver's reading: hand them back and read again.
            torch.cuda.empty_cache()
            free = device_free_bytes(torch, where)
        if free is not None and self.nbytes > usable_bytes(free, host=host):
            raise NotEnoughMemory(self.nbytes, free, "host" if host else str(where))
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[self._itemsize]
        try:
            pool = torch.empty(self.shape, dtype=bits, device=where)
            pool.fill_(self._signed_fill())
            ids = torch.from_numpy(self.block_ids.astype(np.int64)).to(where)
            blocks = torch.from_numpy(self.blocks.codes.view(_NUMPY_BITS[self._itemsize])).to(where)
            pool.index_copy_(0, ids, blocks)
        except Exception as error:  # noqa: BLE001 - only running out of memory is translated
            if not is_out_of_memory(torch, error):
                raise
            pool = None
            if where.type == "cuda":
                torch.cuda.empty_cache()  # what was taken goes back before the free memory is read
            raise NotEnoughMemory(
                self.nbytes, device_free_bytes(torch, where), "host" if host else str(where), _first_line(error)
            ) from error
        dtype = torch_dtype_of(self.dtype_name)
        return pool if dtype is None else pool.view(dtype)

    def __repr__(self) -> str:
        return (
            f"mlacheck.PooledCache({self.dtype_name}, shape={list(self.shape)}, first_block={self.first_block}, "
            f"{len(self.block_ids)} blocks read)"
        )
