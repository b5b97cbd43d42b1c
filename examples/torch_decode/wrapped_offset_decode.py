"""A deliberately wrong MLA decode: the seeded defect of UPSTREAM R4 (aiter #5765, FlashInfer #3130).
It reads each cache row at a byte offset formed in 32 bits -- slot x Lk x element bytes cast to
torch.int32, then read as a kernel reads a buffer load's unsigned 32-bit offset -- so a row 2^32
bytes or more past the pool's base is read from 2^32 bytes lower, as the upstream kernels did
before their offsets became 64-bit. Below 4 GiB of pool it is exact. mlacheck must FAIL it on the
R4 scenario rows, whose rows all lie past 4 GiB: the wrapped rows land on the poisoned blocks below
first_block and O turns NaN. The example's CI test asserts both."""

from __future__ import annotations

import torch

from torch_mla_decode import _OUT_DTYPES, attend, default_device, stored_bits


def wrapped_rows(cache: torch.Tensor, blocks: torch.Tensor, kv_len: int, problem) -> torch.Tensor:
    """[kv_len, Lk] rows of a request, each read at its byte offset wrapped to 32 bits."""
    element = cache.element_size()
    block_size = problem.block_size
    positions = torch.arange(kv_len, device=cache.device)
    slots = blocks[positions // block_size] * block_size + positions % block_size  # int64: right so far
    byte_offsets = (slots * (problem.lk * element)).to(torch.int32)  # the defect: a 32-bit offset
    unsigned = byte_offsets.to(torch.int64) & 0xFFFFFFFF  # as a buffer load reads its offset
    first = unsigned // element
    channels = torch.arange(problem.lk, device=cache.device)
    return stored_bits(cache).reshape(-1)[first[:, None] + channels[None, :]].view(cache.dtype)


def decode(inputs, device=None):
    t = inputs.as_torch(device or default_device())
    o, lse = attend(t, inputs.problem, rows_of=wrapped_rows)
    return o.to(_OUT_DTYPES[inputs.problem.o_dtype]), lse


decode.name = "torch-mla-decode-32bit-cache-offsets"
