"""The problem of an mla_decode case: every field of mlacheck's descriptor and the sizes derived
from it, as backend_abi.h's mlacheck_mla_problem hands them to a C backend."""

from __future__ import annotations

from dataclasses import dataclass

from . import _capi


@dataclass(frozen=True)
class Problem:
    name: str
    repro: str  # `mlacheck run --case "<repro>"` replays the case
    # descriptor fields
    total_heads: int  # query heads of the model
    tp: int  # tensor-parallel ranks
    tp_rank: int  # the rank this problem runs
    kv_lora_rank: int  # Lv: width of the latent values and of O
    rope_dim: int
    scale: float  # softmax scale
    block_size: int
    num_blocks: int
    q_dtype: str  # "bf16", "f16", "f32"; also fp8 against a cache of the same fp8 type
    kv_dtype: str  # also "fp8_e4m3fn", "fp8_e4m3fnuz"
    o_dtype: str
    kv_scale: float  # cache value = kv_scale * code for fp8 caches; 1 otherwise
    q_scale: float  # query value = q_scale * code for fp8 queries; 1 otherwise
    path: str  # the decode path asked for: "auto", "persistent", "split_kv"
    num_splits: int  # 0: the backend chooses
    fill: str  # "random" or "exact" (small integers)
    seed: int
    # derived
    heads: int  # per rank: total_heads / tp
    lk: int  # kv_lora_rank + rope_dim
    batch: int
    total_q_tokens: int
    total_kv_tokens: int
    max_q_len: int
    max_kv_len: int
    max_blocks_per_request: int
    kv_lens: tuple[int, ...]  # cached tokens per request, the new ones included
    q_lens: tuple[int, ...]  # query tokens per request

    @property
    def o_shape(self) -> tuple[int, int, int]:
        return (self.total_q_tokens, self.heads, self.kv_lora_rank)

    @property
    def lse_shape(self) -> tuple[int, int]:
        return (self.total_q_tokens, self.heads)

    @classmethod
    def from_record(cls, r: _capi.MlaProblemRecord, fill: str) -> "Problem":
        batch = r.batch
        return cls(
            name=_capi.text(r.name),
            repro=_capi.text(r.repro),
            total_heads=r.total_heads,
            tp=r.tp,
            tp_rank=r.tp_rank,
            kv_lora_rank=r.kv_lora_rank,
            rope_dim=r.rope_dim,
            scale=r.scale,
            block_size=r.block_size,
            num_blocks=r.num_blocks,
            q_dtype=_capi.DTYPE_NAMES[r.q_dtype],
            kv_dtype=_capi.DTYPE_NAMES[r.kv_dtype],
            o_dtype=_capi.DTYPE_NAMES[r.o_dtype],
            kv_scale=r.kv_scale,
            q_scale=r.q_scale,
            path=_capi.PATH_HINTS[r.path],
            num_splits=r.num_splits,
            fill=fill,
            seed=r.seed,
            heads=r.heads,
            lk=r.lk,
            batch=batch,
            total_q_tokens=r.total_q_tokens,
            total_kv_tokens=r.total_kv_tokens,
            max_q_len=r.max_q_len,
            max_kv_len=r.max_kv_len,
            max_blocks_per_request=r.max_blocks_per_request,
            kv_lens=tuple(r.kv_lens[i] for i in range(batch)),
            q_lens=tuple(r.q_lens[i] for i in range(batch)),
        )
