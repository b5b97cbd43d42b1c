"""A deliberately wrong MLA decode: the negative control of the torch example. It ignores the block
table and reads each request's tokens from blocks 0, 1, 2, ... of the pool, the way a kernel that
hands block ids where page indices belong (or drops the table) would. mlacheck must FAIL it on O;
the example's CI test asserts that it does."""

from __future__ import annotations

import torch

from torch_mla_decode import _OUT_DTYPES, attend, default_device


def decode(inputs, device=None):
    t = inputs.as_torch(device or default_device())
    t.block_table = torch.arange(t.block_table.shape[1], device=t.block_table.device, dtype=torch.int32).expand_as(
        t.block_table
    )
    o, lse = attend(t, inputs.problem)
    return o.to(_OUT_DTYPES[inputs.problem.o_dtype]), lse


decode.name = "torch-mla-decode-ignoring-block-table"
