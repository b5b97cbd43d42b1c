#pragma once
// Staging of latent rows (q rows and KV cache rows) into shared memory as codes of the MMA type S.
//
// Row layout, widths from Lv and R separately (never from Lk, UPSTREAM S5), q and KV alike:
//   [Lv values | unused to value_tile | R rope | zeros to the next 16 | unused | kRowPad codes]
// The matrix products read values in 16-wide steps up to Lv and rope steps from value_tile; the
// rope's last step reads the zeros, so they are written once per row group (zero_rope_padding).
// With the fault tile-width-from-lk the dispatch passes value_tile = next_pow2(Lk) and no rope
// tile: the rope then overlaps the next row, as the upstream mistake did.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/cache_offsets.hpp"
#include "core/dtype_convert.hpp"
#include "device/kernels/async_copy.hpp"
#include "device/kernels/attention_geometry.hpp"
#include "device/kernels/lds_chunk.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::kernels {

struct LatentLayout {
  int lv;
  int rope;
  int lk;
  int value_tile;   // staged offset of the rope
  int stride;       // codes per staged row
  int value_steps;  // 16-wide steps holding values: lv / 16
  int k_steps;      // value steps, then rope steps: ceil(rope / 16)

  __device__ LatentLayout(int lv_, int rope_, int value_tile_, int rope_tile)
      : lv(lv_),
        rope(rope_),
        lk(lv_ + rope_),
        value_tile(value_tile_),
        stride(value_tile_ + (rope_tile + 15) / 16 * 16 + kRowPad),
        value_steps(lv_ / 16),
        k_steps(lv_ / 16 + (rope_ + 15) / 16) {}

  // Staged offset of the step-th 16-wide step of Lk.
  __device__ int k_offset(int step) const { return step < value_steps ? 16 * step : value_tile + 16 * (step - value_steps); }
  // Staged offset of element e of a latent row.
  __device__ int staged_index(int e) const { return e < lv ? e : value_tile + (e - lv); }
};

// Zeros the codes between the rope and its last 16-wide step in `rows` staged rows.
__device__ inline void zero_rope_padding(std::uint16_t* tile, int rows, const LatentLayout& layout) {
  const int first = layout.value_tile + layout.rope;
  const int pad = (layout.rope + 15) / 16 * 16 - layout.rope;
  for (int idx = static_cast<int>(threadIdx.x); idx < rows * pad; idx += kAttentionThreads) {
    tile[idx / pad * layout.stride + first + idx % pad] = 0;
  }
}

// Vector copies of whole rows: thread (group, lane) copies chunks lane, lane + kCopyLanes, ... of
// rows group, group + kCopyGroups, ..., so a chunk costs a few instructions (no division by the
// row's chunk count) and the row's source address is formed once per row. (Groups are a unit of
// work, not hardware warps: any warp width works.)
inline constexpr int kCopyLanes = 32;
inline constexpr int kCopyGroups = kAttentionThreads / kCopyLanes;
inline constexpr int kChunksPerLane = ((kMaxValueTile + kMaxRopeTile) / 8 + kCopyLanes - 1) / kCopyLanes;

// Element offset in a global row of T of this thread's k-th chunk; offsets past Lk mean none (no
// chunk straddles values and rope: lv % 16 == 0).
template <class T>
__device__ inline int lane_chunk(int k) {
  return (static_cast<int>(threadIdx.x) % kCopyLanes + kCopyLanes * k) * kChunkElems<T>;
}

// Stages the 16 q rows of each row tile (row h of tile t at tile_q[t] + h * Lk, none where tile_q[t]
// is null: zeros) as codes of the single-plane MMA type S: Q's own codes for 16-bit q, fp8 codes
// widened exactly to bf16 (mma_type_t<Q, Q>, the type of fp8 q against its fp8 cache). `vector`:
// rows in aligned 16-byte chunks, 16-bit ones copied with copy16_async (complete after the caller's
// next wait and barrier), fp8 ones (16 codes a chunk) widened through registers as stage_kv_tile
// widens an fp8 cache (complete after the next barrier); otherwise element by element. `fallback`
// is any valid global address.
template <class Q, int kRows>
__device__ void stage_q_rows(std::uint16_t* tile, const LatentLayout& layout, bool vector, const void* const* tile_q,
                             const void* fallback) {
  using S = mma_type_t<Q, Q>;
  const int tid = static_cast<int>(threadIdx.x);
  if (vector) {
    for (int r = tid / kCopyLanes; r < kRows; r += kCopyGroups) {
      const Q* tile_rows = static_cast<const Q*>(tile_q[r / kHeadTile]);
      const bool present = tile_rows != nullptr;
      const Q* row = present ? tile_rows + (r % kHeadTile) * layout.lk : static_cast<const Q*>(fallback);
#pragma unroll
      for (int k = 0; k < kChunksPerLane; ++k) {
        // kChunksPerLane counts 8-element chunks: 16-element fp8 chunks reach twice as far.
        const int e0 = lane_chunk<Q>(k);
        if (e0 >= layout.lk) continue;
        std::uint16_t* dst = tile + r * layout.stride + layout.staged_index(e0);
        if constexpr (sizeof(Q) == 2) {
          copy16_async(dst, row + e0, present);
        } else {
          store_widened_chunk<S, Q>(present ? *reinterpret_cast<const Chunk16*>(row + e0) : Chunk16{}, dst);
        }
      }
    }
  } else {
    for (int idx = tid; idx < kRows * layout.lk; idx += kAttentionThreads) {
      const int r = idx / layout.lk;
      const int e = idx - r * layout.lk;
      const Q* row = static_cast<const Q*>(tile_q[r / kHeadTile]);
      tile[r * layout.stride + layout.staged_index(e)] =
          row != nullptr ? staged_code<S>(row[(r % kHeadTile) * layout.lk + e]) : std::uint16_t{0};
    }
  }
}

// Stages q rows of the other 16-bit type than S as S codes of a high and a low part, hi + lo = q * 2^k
// exactly: each row is first scaled by the power of two k that brings its largest |q| into
// [2^14, 2^15), so an f16 part neither overflows nor loses a bf16 q's low bits beyond 2^-39 of the
// row's largest value (an f16 q in bf16 parts is exact at any scale). row_score_scale[r] gets
// score_scale / 2^k. Every thread calls it; it synchronises.
template <class Q, class S, int kRows>
__device__ void stage_split_q_rows(std::uint16_t* hi_tile, std::uint16_t* lo_tile, const LatentLayout& layout,
                                   const void* const* tile_q, std::uint32_t* row_q_max, float* row_score_scale,
                                   float score_scale) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < kRows) row_q_max[tid] = 0;
  __syncthreads();
  for (int idx = tid; idx < kRows * layout.lk; idx += kAttentionThreads) {
    const int r = idx / layout.lk;
    const Q* row = static_cast<const Q*>(tile_q[r / kHeadTile]);
    if (row != nullptr) {
      // Non-negative floats order as their bits; a NaN's bits exceed every finite value's.
      atomicMax(&row_q_max[r], float_bits(fabsf(to_float(row[(r % kHeadTile) * layout.lk + idx - r * layout.lk]))));
    }
  }
  __syncthreads();
  const auto row_scale = [&](int r) {
    const float largest = bits_float(row_q_max[r]);
    if (!(largest > 0.0f && isfinite(largest))) return 1.0f;
    int exponent = 0;
    frexpf(largest, &exponent);  // largest < 2^exponent
    const int shift = 15 - exponent;
    return ldexpf(1.0f, shift < -126 ? -126 : (shift > 126 ? 126 : shift));
  };
  for (int idx = tid; idx < kRows * layout.lk; idx += kAttentionThreads) {
    const int r = idx / layout.lk;
    const int e = idx - r * layout.lk;
    const Q* row = static_cast<const Q*>(tile_q[r / kHeadTile]);
    const float x = row != nullptr ? to_float(row[(r % kHeadTile) * layout.lk + e]) * row_scale(r) : 0.0f;
    const S hi = from_float<S>(x);
    const int at = r * layout.stride + layout.staged_index(e);
    hi_tile[at] = hi.bits;
    lo_tile[at] = from_float<S>(x - to_float(hi)).bits;
  }
  if (tid < kRows) row_score_scale[tid] = score_scale / row_scale(tid);
}

// Stages the KV rows of one tile: row r from cache slot slots[r], zeros where slots[r] < 0 (past
// the range: P = 0 there must not meet a stale NaN). A 16-bit cache in aligned rows goes through
// copy16_async; fp8 rows are widened through registers; unaligned rows element by element.
// Rows start at 64-bit offsets (core/cache_offsets.hpp): a pool passes 4 GiB long before its
// 32-bit slots run out. `offset_32bit` is fault cache-offset-32bit (UPSTREAM R4, aiter #5765):
// the byte offset formed in 32 bits, so rows past 4 GiB are read from 4 GiB lower.
static_assert(kStageTokens % kCopyGroups == 0);
template <class KV, class S>
__device__ void stage_kv_tile(std::uint16_t* tile, const LatentLayout& layout, bool vector, bool offset_32bit,
                              const KV* cache, const std::int32_t* slots) {
  const int tid = static_cast<int>(threadIdx.x);
  const auto row_of = [&](std::int32_t slot) {
    return cache + (offset_32bit ? wrapped_cache_row_offset(slot, layout.lk, static_cast<int>(sizeof(KV)))
                                 : cache_row_offset(slot, layout.lk));
  };
  if (vector) {
    // The rows' slots are read and their addresses formed first, so the copies of all the rows
    // issue back to back instead of each row waiting for its slot's shared-memory load.
    constexpr int kRows = kStageTokens / kCopyGroups;
    const KV* row[kRows];
    bool present[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const std::int32_t slot = slots[tid / kCopyLanes + kCopyGroups * i];
      present[i] = slot >= 0;
      row[i] = row_of(slot < 0 ? 0 : slot);
    }
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      std::uint16_t* dst = tile + (tid / kCopyLanes + kCopyGroups * i) * layout.stride;
#pragma unroll
      for (int k = 0; k < kChunksPerLane; ++k) {
        const int e0 = lane_chunk<KV>(k);
        if (e0 >= layout.lk) continue;
        if constexpr (sizeof(KV) == 2) {
          copy16_async(dst + layout.staged_index(e0), row[i] + e0, present[i]);
        } else {
          store_widened_chunk<S, KV>(present[i] ? *reinterpret_cast<const Chunk16*>(row[i] + e0) : Chunk16{},
                                     dst + layout.staged_index(e0));
        }
      }
    }
  } else {
    for (int idx = tid; idx < kStageTokens * layout.lk; idx += kAttentionThreads) {
      const int r = idx / layout.lk;
      const int e = idx - r * layout.lk;
      const std::int32_t slot = slots[r];
      tile[r * layout.stride + layout.staged_index(e)] = slot >= 0 ? staged_code<S>(row_of(slot)[e]) : std::uint16_t{0};
    }
  }
}

}  // namespace mlacheck::kernels
