"""A NumPy MLA decode for the package's own tests (no torch needed): the layouts of backend_abi.h
read with nothing but the NumPy arrays mlacheck hands out. Float64 throughout, then rounded to
o_dtype with mlacheck.encode."""

from __future__ import annotations

import numpy as np

import mlacheck


def attend(inputs, q_scale=None):
    """(O float64 [total_q_tokens, heads, Lv], LSE float64 [total_q_tokens, heads]). `q_scale`
    replaces the problem's (a backend that forgets it passes 1)."""
    p = inputs.problem
    q = inputs.q.values().astype(np.float64) * (p.q_scale if q_scale is None else q_scale)
    # The pool's codes, decoded block by block as each request reads them: a pool past 4 GiB (a
    # PooledCache, or a decode sequence's pool) is several GiB of codes, and its whole decoded
    # copy in float64 would be four to eight times that.
    pool = inputs.kv_cache
    table = inputs.block_table.codes
    qo = inputs.qo_indptr.codes
    o = np.empty((p.total_q_tokens, p.heads, p.kv_lora_rank))
    lse = np.empty((p.total_q_tokens, p.heads))
    for r, kv_len in enumerate(inputs.kv_lens.codes):
        if kv_len == 0:  # a padded request (its table row is -1): the identity, O 0 and LSE -inf
            o[qo[r] : qo[r + 1]] = 0.0
            lse[qo[r] : qo[r + 1]] = -np.inf
            continue
        blocks = table[r, : (kv_len + p.block_size - 1) // p.block_size]
        read = mlacheck.Tensor(pool.codes[blocks], pool.dtype_name).values().astype(np.float64) * p.kv_scale
        keys = read.reshape(-1, p.lk)[:kv_len]
        rows = q[qo[r] : qo[r + 1]]
        q_len = rows.shape[0]
        scores = np.einsum("thc,nc->thn", rows, keys) * p.scale
        visible = kv_len - q_len + 1 + np.arange(q_len)
        hidden = np.arange(kv_len)[None, :] >= visible[:, None]  # [q_len, kv_len]
        scores = np.where(hidden[:, None, :], -np.inf, scores)
        top = scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores - top)
        total = weights.sum(axis=-1, keepdims=True)
        o[qo[r] : qo[r + 1]] = np.einsum("thn,nc->thc", weights / total, keys[:, : p.kv_lora_rank])
        lse[qo[r] : qo[r + 1]] = (top + np.log(total))[..., 0]
    return o, lse


def as_output(values, dtype_name):
    """O values as what a backend returns for o_dtype: f32 arrays, else an mlacheck.Tensor of codes."""
    if dtype_name == "f32":
        return values.astype(np.float32)
    return mlacheck.Tensor(mlacheck.encode(dtype_name, values), dtype_name)


def decode(inputs):
    o, lse = attend(inputs)
    return as_output(o, inputs.problem.o_dtype), lse.astype(np.float32)


decode.name = "numpy-reference"
decode.version = "1"
