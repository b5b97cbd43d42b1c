"""A paged MLA decode written in Triton, tested by mlacheck as an object backend.

One program per (query token, block of BLOCK_H heads): it finds its request, walks the request's
visible cache positions in tiles of BLOCK_N, gathers each tile's rows through the block table
(page = block_table[request, pos // block_size], slot = pos % block_size, the row's offset formed
in int64 so pools past 4 GiB are addressed right), scores q against the whole latent+rope row
(Lk = Lv + rope) and accumulates the first Lv columns of the same rows as values (MLA's shared
latent cache), with an online softmax in fp32 (base 2: exp2 of the scores times scale * log2 e).
O is divided by the row sum once, stored in o_dtype; LSE is stored in natural log. Causal: query
token i of a request with q_len tokens sees the first kv_len - q_len + i + 1 positions; a row that
sees none (a padded request, kv_len 0) gets O = 0 and LSE = -inf.

Arithmetic, declared to mlacheck as p_rounding "mma_input": q k^T on tensor cores with fp32
accumulation; P (fp32, from a running max that includes the current tile) rounded to the cache's
dtype for P V, its row sum kept in fp32 before rounding. Where q and the cache are different
16-bit types, the f16 operand of q k^T is split exactly into bf16 hi + lo (two bf16 MMAs, exact
products) and P is split into hi + lo of the cache's dtype, the model mlacheck's tolerance has for
a P rounded to a type other than q's (docs/tolerance.md). fp8 and f32 are refused.

Grid: (total_q_tokens, cdiv(heads, BLOCK_H)). The query token -> request map is made on the device
(torch.searchsorted over qo_indptr); kv_lens, qo_indptr and the block table are read by the kernel,
so run() never synchronises with the host.

    mlacheck.run(mlacheck.plan("default"), TritonMlaDecode())
    pytest -p mlacheck.pytest_plugin --mlacheck-backend triton_mla_decode:TritonMlaDecode

NoCausalMask and ForgotLog2e are seeded defects (every query token sees the whole cache; exp2 of
the scores without log2 e): mlacheck must FAIL them.
"""

from __future__ import annotations

import contextlib

import torch
import triton
import triton.language as tl

import mlacheck
from torch_mla_decode import default_device

# (q, cache, O): 16-bit queries and caches, O in either 16-bit type.
DTYPES = [(q, kv, o) for q in ("bf16", "f16") for kv in ("bf16", "f16") for o in ("bf16", "f16")]
_TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
# The widest latent and rope the kernel's tiles are sized for (the property sweep draws Lv <= 512,
# rope <= 128): a power-of-two tile of at most 512 columns of latent and 128 of rope.
MAX_LV = 512
MAX_ROPE = 128

# Lv/rope, heads, block sizes, q_len, pool size, sequences and graph replay: all of them (no field
# given); supports() refuses only Lv > MAX_LV or rope > MAX_ROPE, which the sweep never draws.
SPACE = mlacheck.Space(dtypes=DTYPES)

BLOCK_H = 16  # heads a program; tl.dot needs M >= 16
BLOCK_N = 32  # cache positions a tile
LOG2E = 1.4426950408889634


def triton_refusal(problem) -> str | None:
    """Why the kernel refuses `problem` (None: it runs it)."""
    if problem.q_dtype.startswith("fp8") or problem.kv_dtype.startswith("fp8"):
        return f"fp8 ({problem.q_dtype} q, {problem.kv_dtype} cache) is not supported: 16-bit q and cache only"
    if (problem.q_dtype, problem.kv_dtype, problem.o_dtype) not in DTYPES:
        return f"q/cache/O {problem.q_dtype}/{problem.kv_dtype}/{problem.o_dtype} is not supported: bf16 or f16 each"
    if problem.kv_lora_rank > MAX_LV or problem.rope_dim > MAX_ROPE:
        return f"Lv {problem.kv_lora_rank} with rope {problem.rope_dim}: at most Lv {MAX_LV} and rope {MAX_ROPE}"
    return None


def tile_sizes(lv: int, rope: int) -> tuple[int, int]:
    """(BLOCK_LV, BLOCK_ROPE): powers of two covering Lv and rope, at least 16 (tl.dot's K and N);
    BLOCK_ROPE 0 when there is no rope."""
    block_lv = max(16, triton.next_power_of_2(lv))
    block_rope = 0 if rope == 0 else max(16, triton.next_power_of_2(rope))
    return block_lv, block_rope


def qk_split(q_dtype: str, kv_dtype: str) -> int:
    """How q k^T is formed: 0 q and cache of one dtype; 1 an f16 q split into bf16 hi + lo against a
    bf16 cache; 2 an f16 cache tile split into bf16 hi + lo against a bf16 q."""
    if q_dtype == kv_dtype:
        return 0
    return 1 if q_dtype == "f16" else 2


@triton.jit
def _split_bf16(x):
    """x (f16) as bf16 hi + lo with hi + lo == x exactly (11 significant bits into 8 + 8)."""
    wide = x.to(tl.float32)  # exact; f16 -> bf16 goes through fp32 in any case
    hi = wide.to(tl.bfloat16)
    lo = (wide - hi.to(tl.float32)).to(tl.bfloat16)
    return hi, lo


# heads and block_size vary from case to case and the kernel gains nothing from specialising on
# them (a value of 1 or a multiple of 16): one compiled variant serves them all.
@triton.jit(do_not_specialize=["heads", "block_size"])
def _mla_decode_kernel(
    q_ptr, kv_ptr, block_table_ptr, kv_lens_ptr, qo_indptr_ptr, request_of_token_ptr, o_ptr, lse_ptr,
    stride_q_token, stride_q_head, stride_q_chan,
    stride_kv_block, stride_kv_slot, stride_kv_chan,
    stride_bt_request, stride_bt_block,
    stride_o_token, stride_o_head, stride_o_chan,
    stride_lse_token, stride_lse_head,
    heads, block_size, lv, rope,
    qk_scale_log2,  # softmax scale * log2(e): scores in base-2 units
    BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_LV: tl.constexpr, BLOCK_ROPE: tl.constexpr,
    QK_SPLIT: tl.constexpr,  # qk_split(): 0, 1 (q split into bf16 hi + lo) or 2 (the cache tile split)
    SPLIT_P: tl.constexpr,  # P rounded to the cache's dtype as hi + lo (q's dtype differs from it)
    CAUSAL: tl.constexpr,  # False only in the seeded defect NoCausalMask
):
    token = tl.program_id(0)
    head_block = tl.program_id(1)

    request = tl.load(request_of_token_ptr + token)
    q_start = tl.load(qo_indptr_ptr + request)
    q_len = tl.load(qo_indptr_ptr + request + 1) - q_start
    kv_len = tl.load(kv_lens_ptr + request)
    if CAUSAL:
        visible = kv_len - q_len + (token - q_start) + 1
    else:
        visible = kv_len
    visible = tl.maximum(tl.minimum(visible, kv_len), 0)

    offs_h = head_block * BLOCK_H + tl.arange(0, BLOCK_H)
    mask_h = offs_h < heads
    offs_c = tl.arange(0, BLOCK_LV)
    mask_c = offs_c < lv

    # q [BLOCK_H, BLOCK_LV] (+ [BLOCK_H, BLOCK_ROPE]): loaded once, padded with zeros.
    q_rows = q_ptr + token.to(tl.int64) * stride_q_token + offs_h.to(tl.int64)[:, None] * stride_q_head
    q_lat = tl.load(q_rows + offs_c[None, :] * stride_q_chan, mask=mask_h[:, None] & mask_c[None, :], other=0.0)
    if QK_SPLIT == 1:
        q_lat_hi, q_lat_lo = _split_bf16(q_lat)
    if BLOCK_ROPE > 0:
        offs_r = tl.arange(0, BLOCK_ROPE)
        mask_r = offs_r < rope
        q_rope = tl.load(
            q_rows + (lv + offs_r[None, :]) * stride_q_chan, mask=mask_h[:, None] & mask_r[None, :], other=0.0
        )
        if QK_SPLIT == 1:
            q_rope_hi, q_rope_lo = _split_bf16(q_rope)

    m_i = tl.zeros([BLOCK_H], dtype=tl.float32) - float("inf")  # running max, base-2 units
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)  # running row sum of P
    acc = tl.zeros([BLOCK_H, BLOCK_LV], dtype=tl.float32)

    table_row = block_table_ptr + request.to(tl.int64) * stride_bt_request
    for start in range(0, visible, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        mask_n = pos < visible
        page = tl.load(table_row + (pos // block_size) * stride_bt_block, mask=mask_n, other=0)
        slot = pos % block_size
        # int64 before any product: in a pool past 4 GiB a row's element offset passes 2^31 (bf16).
        row = page.to(tl.int64) * stride_kv_block + slot.to(tl.int64) * stride_kv_slot
        kv_rows = kv_ptr + row[:, None]
        # [BLOCK_N, BLOCK_LV]: keys' latent part and the values; unread slots hold NaN, so masked.
        k_lat = tl.load(kv_rows + offs_c[None, :] * stride_kv_chan, mask=mask_n[:, None] & mask_c[None, :], other=0.0)
        if QK_SPLIT == 0:
            s = tl.dot(q_lat, tl.trans(k_lat))
        elif QK_SPLIT == 1:
            s = tl.dot(q_lat_hi, tl.trans(k_lat))
            s = tl.dot(q_lat_lo, tl.trans(k_lat), s)
        else:
            k_lat_hi, k_lat_lo = _split_bf16(k_lat)
            s = tl.dot(q_lat, tl.trans(k_lat_hi))
            s = tl.dot(q_lat, tl.trans(k_lat_lo), s)
        if BLOCK_ROPE > 0:
            k_rope = tl.load(
                kv_rows + (lv + offs_r[None, :]) * stride_kv_chan, mask=mask_n[:, None] & mask_r[None, :], other=0.0
            )
            if QK_SPLIT == 0:
                s = tl.dot(q_rope, tl.trans(k_rope), s)
            elif QK_SPLIT == 1:
                s = tl.dot(q_rope_hi, tl.trans(k_rope), s)
                s = tl.dot(q_rope_lo, tl.trans(k_rope), s)
            else:
                k_rope_hi, k_rope_lo = _split_bf16(k_rope)
                s = tl.dot(q_rope, tl.trans(k_rope_hi), s)
                s = tl.dot(q_rope, tl.trans(k_rope_lo), s)
        s = tl.where(mask_n[None, :], s * qk_scale_log2, float("-inf"))

        # Online softmax; the first tile holds position 0, visible to every row, so m_new is finite.
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        p_hi = p.to(kv_ptr.dtype.element_ty)
        acc = tl.dot(p_hi, k_lat, acc)
        if SPLIT_P:
            p_lo = (p - p_hi.to(tl.float32)).to(kv_ptr.dtype.element_ty)
            acc = tl.dot(p_lo, k_lat, acc)
        m_i = m_new

    seen = l_i > 0.0  # false only for a row that sees no position
    l_safe = tl.where(seen, l_i, 1.0)
    out = acc / l_safe[:, None]
    lse = tl.where(seen, (m_i + tl.log2(l_safe)) * 0.6931471805599453, float("-inf"))

    o_rows = o_ptr + token.to(tl.int64) * stride_o_token + offs_h.to(tl.int64)[:, None] * stride_o_head
    tl.store(o_rows + offs_c[None, :] * stride_o_chan, out.to(o_ptr.dtype.element_ty),
             mask=mask_h[:, None] & mask_c[None, :])
    tl.store(lse_ptr + token.to(tl.int64) * stride_lse_token + offs_h.to(tl.int64) * stride_lse_head, lse,
             mask=mask_h)


def request_of_token(qo_indptr: torch.Tensor, total_q_tokens: int) -> torch.Tensor:
    """int32 [total_q_tokens]: the request each query token belongs to, on qo_indptr's device
    (the r with qo_indptr[r] <= token < qo_indptr[r + 1]; requests without tokens are passed over)."""
    ends = qo_indptr[1:].to(torch.int32).contiguous()
    tokens = torch.arange(total_q_tokens, dtype=torch.int32, device=qo_indptr.device)
    return torch.searchsorted(ends, tokens, right=True, out_int32=True)


def mla_decode(t, problem, o: torch.Tensor, lse: torch.Tensor, *, qk_scale_log2: float, causal: bool = True) -> None:
    """Runs the kernel on torch inputs `t` (inputs.as_torch(device)), writing O and LSE in place."""
    for name, tensor, dtype in (("q", t.q, problem.q_dtype), ("kv_cache", t.kv_cache, problem.kv_dtype),
                                ("O", o, problem.o_dtype)):
        if tensor.dtype != _TORCH_DTYPES[dtype]:
            raise TypeError(f"{name} is {tensor.dtype}, the problem's {dtype} needs {_TORCH_DTYPES[dtype]}")
    if lse.dtype != torch.float32:
        raise TypeError(f"LSE is {lse.dtype}, float32 is needed")
    if problem.total_q_tokens == 0 or problem.heads == 0:
        return
    block_lv, block_rope = tile_sizes(problem.kv_lora_rank, problem.rope_dim)
    split = qk_split(problem.q_dtype, problem.kv_dtype)
    grid = (problem.total_q_tokens, triton.cdiv(problem.heads, BLOCK_H))
    # Triton launches on the current CUDA device: make it the outputs' one.
    with torch.cuda.device(o.device) if o.device.type == "cuda" else contextlib.nullcontext():
        requests = request_of_token(t.qo_indptr, problem.total_q_tokens)
        _mla_decode_kernel[grid](
            t.q, t.kv_cache, t.block_table, t.kv_lens, t.qo_indptr, requests, o, lse,
            t.q.stride(0), t.q.stride(1), t.q.stride(2),
            t.kv_cache.stride(0), t.kv_cache.stride(1), t.kv_cache.stride(2),
            t.block_table.stride(0), t.block_table.stride(1),
            o.stride(0), o.stride(1), o.stride(2),
            lse.stride(0), lse.stride(1),
            problem.heads, problem.block_size, problem.kv_lora_rank, problem.rope_dim,
            qk_scale_log2,
            BLOCK_H=BLOCK_H, BLOCK_N=BLOCK_N, BLOCK_LV=block_lv, BLOCK_ROPE=block_rope,
            QK_SPLIT=split, SPLIT_P=split != 0, CAUSAL=causal,
            num_warps=4, num_stages=2,
        )


class TritonMlaDecode:
    """mlacheck's object backend shape: writes O and LSE into the outputs mlacheck staged on
    `device` (a CUDA device; the argument, else $MLACHECK_TORCH_DEVICE, else cuda when torch
    sees a GPU)."""

    name = "triton-mla-decode"
    version = f"triton {triton.__version__}, torch {torch.__version__}"
    lse_base = "natural"
    writes_lse = True
    p_rounding = "mma_input"
    space = SPACE
    causal = True  # the seeded defects below change these two
    log2e = LOG2E

    def __init__(self, device=None):
        self.device = device or default_device()

    def supports(self, problem):
        if torch.device(self.device).type != "cuda":
            return f"the Triton kernel runs on a CUDA device; this backend's device is {self.device}"
        return triton_refusal(problem)

    def run(self, inputs, outputs):
        problem = inputs.problem
        mla_decode(inputs.as_torch(self.device), problem, outputs.o, outputs.lse,
                   qk_scale_log2=problem.scale * self.log2e, causal=self.causal)


class NoCausalMask(TritonMlaDecode):
    """Seeded defect: every query token sees all kv_len positions (the causal offset dropped).
    Right for q_len 1; wrong for every earlier token of a multi-token request."""

    name = "triton-mla-decode-no-causal-mask"
    causal = False


class ForgotLog2e(TritonMlaDecode):
    """Seeded defect: exp2 of scale * q.k, the log2(e) factor forgotten (a softmax at the wrong
    temperature, and an LSE off by the same factor)."""

    name = "triton-mla-decode-forgot-log2e"
    log2e = 1.0
