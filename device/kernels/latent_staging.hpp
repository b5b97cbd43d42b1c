#pragma once
// Staging of latent rows (q rows and KV cache rows) into shared memory as codes of the MMA type S,
// or, for an fp8 cache (and fp8 q on the fp8 score products), as bytes at the same offsets.
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
  // fp8 rows staged as bytes, at the same offsets: values and rope each padded with zeros to whole
  // 32-wide steps (the fp8 matrix products' k), then kByteRowPad.
  int byte_stride;
  int fp8_value_steps;  // ceil(lv / 32)
  int fp8_k_steps;      // fp8 value steps, then ceil(rope / 32) rope steps

  __device__ LatentLayout(int lv_, int rope_, int value_tile_, int rope_tile)
      : lv(lv_),
        rope(rope_),
        lk(lv_ + rope_),
        value_tile(value_tile_),
        stride(value_tile_ + (rope_tile + 15) / 16 * 16 + kRowPad),
        value_steps(lv_ / 16),
        k_steps(lv_ / 16 + (rope_ + 15) / 16),
        byte_stride(value_tile_ + max_int((rope_tile + 15) / 16 * 16, (rope_ + 31) / 32 * 32) + kByteRowPad),
        fp8_value_steps((lv_ + 31) / 32),
        fp8_k_steps((lv_ + 31) / 32 + (rope_ + 31) / 32) {}

  // Staged offset of the step-th 16-wide step of Lk.
  __device__ int k_offset(int step) const { return step < value_steps ? 16 * step : value_tile + 16 * (step - value_steps); }
  // Staged offset of the step-th 32-wide step of Lk in fp8 bytes.
  __device__ int fp8_k_offset(int step) const {
    return step < fp8_value_steps ? 32 * step : value_tile + 32 * (step - fp8_value_steps);
  }
  // Staged offset of element e of a latent row.
  __device__ int staged_index(int e) const { return e < lv ? e : value_tile + (e - lv); }

 private:
  static __device__ int max_int(int a, int b) { return a > b ? a : b; }
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
// next wait and barrier), fp8 ones (16 codes a chunk) widened through registers by
// store_widened_chunk (complete after the next barrier); otherwise element by element. `fallback`
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

// Zeros what the 32-wide fp8 steps read past the values and past the rope, in `rows` byte rows
// (no copy writes there).
__device__ inline void zero_fp8_step_padding(std::uint8_t* tile, int rows, const LatentLayout& layout) {
  const int value_pad = layout.fp8_value_steps * 32 - layout.lv;
  const int rope_pad = (layout.fp8_k_steps - layout.fp8_value_steps) * 32 - layout.rope;
  const int pad = value_pad + rope_pad;
  if (pad == 0) return;
  for (int idx = static_cast<int>(threadIdx.x); idx < rows * pad; idx += kAttentionThreads) {
    const int r = idx / pad;
    const int i = idx - r * pad;
    tile[r * layout.byte_stride + (i < value_pad ? layout.lv + i : layout.value_tile + layout.rope + i - value_pad)] = 0;
  }
}

// Stages the q rows of each row tile as their own fp8 bytes, for the fp8 score products, as
// stage_q_rows places 16-bit codes: 16-byte chunks through copy16_async when `vector`, else byte by
// byte (zeros where a tile has no q).
template <class Q, int kRows>
__device__ void stage_q_bytes(std::uint8_t* tile, const LatentLayout& layout, bool vector, const void* const* tile_q,
                              const void* fallback) {
  static_assert(sizeof(Q) == 1);
  const int tid = static_cast<int>(threadIdx.x);
  if (vector) {
    for (int r = tid / kCopyLanes; r < kRows; r += kCopyGroups) {
      const Q* tile_rows = static_cast<const Q*>(tile_q[r / kHeadTile]);
      const bool present = tile_rows != nullptr;
      const Q* row = present ? tile_rows + (r % kHeadTile) * layout.lk : static_cast<const Q*>(fallback);
      for (int e0 = lane_chunk<Q>(0); e0 < layout.lk; e0 += kCopyLanes * kChunkElems<Q>) {
        copy16_async(tile + r * layout.byte_stride + layout.staged_index(e0), row + e0, present);
      }
    }
  } else {
    for (int idx = tid; idx < kRows * layout.lk; idx += kAttentionThreads) {
      const int r = idx / layout.lk;
      const int e = idx - r * layout.lk;
      const Q* row = static_cast<const Q*>(tile_q[r / kHeadTile]);
      tile[r * layout.byte_stride + layout.staged_index(e)] = row != nullptr ? row[(r % kHeadTile) * layout.lk + e].bits : 0;
    }
  }
}

// Global row of cache slot `slot` (>= 0). `offset_32bit` is fault cache-offset-32bit (UPSTREAM R4,
// aiter #5765): the byte offset formed in 32 bits, so rows past 4 GiB are read from 4 GiB lower.
template <class KV>
__device__ inline const KV* cache_row(const KV* cache, std::int32_t slot, int lk, bool offset_32bit) {
  return cache + (offset_32bit ? wrapped_cache_row_offset(slot, lk, static_cast<int>(sizeof(KV)))
                               : cache_row_offset(slot, lk));
}

// Widens a tile of fp8 byte rows into codes of S at the same offsets: the values, and the rope too
// unless `values_only` (the fp8 score products read the rope as bytes). Whole 16-byte chunks: a
// rope that ends inside one widens the byte tile's zeros after it.
template <class S, class KV>
__device__ void widen_kv_tile(std::uint16_t* codes, const std::uint8_t* bytes, const LatentLayout& layout,
                              bool values_only) {
  const int tid = static_cast<int>(threadIdx.x);
  const int value_chunks = layout.lv / 16;
  const int chunks = value_chunks + (values_only ? 0 : (layout.rope + 15) / 16);
  for (int r = tid / kCopyLanes; r < kStageTokens; r += kCopyGroups) {
    for (int c = tid % kCopyLanes; c < chunks; c += kCopyLanes) {
      const int e0 = c < value_chunks ? 16 * c : layout.value_tile + 16 * (c - value_chunks);
      store_widened_chunk<S, KV>(*reinterpret_cast<const Chunk16*>(bytes + r * layout.byte_stride + e0),
                                 codes + r * layout.stride + e0);
    }
  }
}

// Stages the KV rows of one tile as the cache stores them: row r from cache slot slots[r], zeros
// where slots[r] < 0 (past the range: P = 0 there must not meet a stale NaN). A 16-bit cache's
// codes are the MMA codes themselves, at layout.stride; an fp8 cache's bytes go to a byte tile at
// layout.byte_stride, which widen_kv_tile turns into codes. Aligned rows in 16-byte copies through
// copy16_async (complete after the caller's wait and barrier), unaligned rows element by element.
// Rows start at 64-bit offsets (core/cache_offsets.hpp): a pool passes 4 GiB long before its
// 32-bit slots run out (cache_row).
static_assert(kStageTokens % kCopyGroups == 0);
template <class KV>
__device__ void stage_kv_tile(void* tile_base, const LatentLayout& layout, bool vector, bool offset_32bit,
                              const KV* cache, const std::int32_t* slots) {
  using Code = std::conditional_t<sizeof(KV) == 2, std::uint16_t, std::uint8_t>;
  Code* tile = static_cast<Code*>(tile_base);
  const int stride = sizeof(KV) == 2 ? layout.stride : layout.byte_stride;
  const int tid = static_cast<int>(threadIdx.x);
  if (vector) {
    // The rows' slots are read and their addresses formed first, so the copies of all the rows
    // issue back to back instead of each row waiting for its slot's shared-memory load.
    constexpr int kRows = kStageTokens / kCopyGroups;
    constexpr int kLaneChunks = ((kMaxValueTile + kMaxRopeTile) / kChunkElems<KV> + kCopyLanes - 1) / kCopyLanes;
    const KV* row[kRows];
    bool present[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const std::int32_t slot = slots[tid / kCopyLanes + kCopyGroups * i];
      present[i] = slot >= 0;
      row[i] = cache_row(cache, slot < 0 ? 0 : slot, layout.lk, offset_32bit);
    }
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      Code* dst = tile + (tid / kCopyLanes + kCopyGroups * i) * stride;
#pragma unroll
      for (int k = 0; k < kLaneChunks; ++k) {
        const int e0 = lane_chunk<KV>(k);
        if (e0 < layout.lk) copy16_async(dst + layout.staged_index(e0), row[i] + e0, present[i]);
      }
    }
  } else {
    for (int idx = tid; idx < kStageTokens * layout.lk; idx += kAttentionThreads) {
      const int r = idx / layout.lk;
      const int e = idx - r * layout.lk;
      const std::int32_t slot = slots[r];
      tile[r * stride + layout.staged_index(e)] =
          slot >= 0 ? cache_row(cache, slot, layout.lk, offset_32bit)[e].bits : Code{0};
    }
  }
}

}  // namespace mlacheck::kernels
