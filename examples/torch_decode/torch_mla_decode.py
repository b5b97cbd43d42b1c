"""A pure PyTorch MLA decode, tested by mlacheck through its Python API (example (b)).

It reads the case's inputs as torch tensors in backend_abi.h's layouts: q [total_q_tokens, heads,
lk] and the paged latent cache [num_blocks, block_size, lk] (bf16/f16 tensors; fp8 caches, and fp8
queries against them, as torch's fp8 dtype where torch has one, else uint8 codes decoded through a
256-entry table, each dequantised with its per-tensor scale),
gathers each request's tokens through its block table row, attends causally (query token i of a
request with q_len tokens sees the first kv_len - q_len + i + 1 tokens), and returns O in
o_dtype and LSE in natural log. Scores and softmax in float32, as GPU kernels accumulate.

Device: the `device` argument of TorchMlaBackend, else $MLACHECK_TORCH_DEVICE, else "cuda" when
torch sees a GPU, else "cpu".

Two shapes of backend, both accepted by mlacheck.run and the pytest plugin:
  decode(inputs) -> (o, lse)           allocates its outputs
  TorchMlaBackend(device).run(inputs, outputs)   writes into outputs mlacheck staged (poisoned,
                                                 guarded), so unwritten rows and overruns show
"""

from __future__ import annotations

import os

import numpy as np
import torch

import mlacheck


def default_device() -> str:
    return os.environ.get("MLACHECK_TORCH_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")


_FP8_TABLES: dict[tuple[str, str], torch.Tensor] = {}


def _fp8_table(dtype_name: str, device) -> torch.Tensor:
    """float32 value of every fp8 code, decoded by mlacheck's codec (for torch without fp8)."""
    key = (dtype_name, str(device))
    if key not in _FP8_TABLES:
        values = mlacheck.decode(dtype_name, np.arange(256, dtype=np.uint8))
        _FP8_TABLES[key] = torch.from_numpy(values).to(device)
    return _FP8_TABLES[key]


def dequantised(tensor: torch.Tensor, dtype_name: str, scale: float) -> torch.Tensor:
    """q or the cache as float32 values: fp8 codes dequantised with their per-tensor scale."""
    if dtype_name.startswith("fp8"):
        if tensor.dtype == torch.uint8:  # torch without fp8 dtypes hands out the codes
            values = _fp8_table(dtype_name, tensor.device)[tensor.long()]
        else:
            values = tensor.to(torch.float32)
        return values * scale
    return tensor.to(torch.float32)


def stored_bits(cache: torch.Tensor) -> torch.Tensor:
    """The cache viewed as integers of its element width: indexing is defined for those on every
    torch, not for every torch's fp8 dtypes."""
    return cache.view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[cache.element_size()])


def request_rows(cache: torch.Tensor, blocks: torch.Tensor, kv_len: int, problem) -> torch.Tensor:
    """[kv_len, Lk] cache rows of a request in position order, as stored: the rows of its blocks."""
    return stored_bits(cache)[blocks].reshape(-1, problem.lk)[:kv_len].view(cache.dtype)


def attend(t, problem, rows_of=request_rows) -> tuple[torch.Tensor, torch.Tensor]:
    """(O float32 [total_q_tokens, heads, Lv], LSE float32 [total_q_tokens, heads]) of torch inputs.
    `rows_of(cache, blocks, kv_len, problem)` reads a request's rows out of the pool; only those are
    dequantised, so a pool of many GiB (a case with first_block) costs no float32 copy."""
    q = dequantised(t.q, problem.q_dtype, problem.q_scale)  # q_scale is 1 for 16-bit queries
    lv = problem.kv_lora_rank
    block_size = problem.block_size
    kv_lens = t.kv_lens.tolist()
    qo = t.qo_indptr.tolist()
    o = torch.empty(problem.total_q_tokens, problem.heads, lv, dtype=torch.float32, device=q.device)
    lse = torch.empty(problem.total_q_tokens, problem.heads, dtype=torch.float32, device=q.device)
    for r, kv_len in enumerate(kv_lens):
        blocks = t.block_table[r, : (kv_len + block_size - 1) // block_size].long()
        # [kv_len, Lk]: the request's tokens in order
        keys = dequantised(rows_of(t.kv_cache, blocks, kv_len, problem), problem.kv_dtype, problem.kv_scale)
        values = keys[:, :lv]
        rows = q[qo[r] : qo[r + 1]]  # [q_len, heads, Lk]
        q_len = rows.shape[0]
        scores = torch.einsum("thc,nc->thn", rows, keys) * problem.scale
        # Query token i sees positions [0, kv_len - q_len + i]: the new tokens end the cache.
        visible = kv_len - q_len + 1 + torch.arange(q_len, device=q.device)
        hidden = torch.arange(kv_len, device=q.device)[None, :] >= visible[:, None]  # [q_len, kv_len]
        scores = scores.masked_fill(hidden[:, None, :], float("-inf"))
        row_lse = torch.logsumexp(scores, dim=-1)  # [q_len, heads]
        weights = torch.exp(scores - row_lse[..., None])
        o[qo[r] : qo[r + 1]] = torch.einsum("thn,nc->thc", weights, values)
        lse[qo[r] : qo[r + 1]] = row_lse
    return o, lse


_OUT_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def decode(inputs, device=None):
    """mlacheck's callable backend shape: inputs -> (O in o_dtype, LSE f32, natural log)."""
    problem = inputs.problem
    t = inputs.as_torch(device or default_device())
    o, lse = attend(t, problem)
    return o.to(_OUT_DTYPES[problem.o_dtype]), lse


decode.name = "torch-mla-decode"
decode.version = f"torch {torch.__version__}"


class TorchMlaBackend:
    """mlacheck's object backend shape: writes into the outputs mlacheck staged on `device`."""

    name = "torch-mla-decode"
    version = f"torch {torch.__version__}"
    lse_base = "natural"
    writes_lse = True

    def __init__(self, device=None):
        self.device = device or default_device()

    def supports(self, problem):
        if problem.o_dtype not in _OUT_DTYPES:
            return f"o_dtype {problem.o_dtype} has no torch dtype here"
        return None

    def run(self, inputs, outputs):
        o, lse = attend(inputs.as_torch(self.device), inputs.problem)
        outputs.o.copy_(o.to(outputs.o.dtype))
        outputs.lse.copy_(lse)
