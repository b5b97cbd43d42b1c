#pragma once
// Stage 1 of the split-KV MLA decode: one block per (query token, 16-head tile, split) runs an
// online softmax over its split's share of the token's visible KV range and writes a partial O
// (fp32, normalised by its own sum) and a partial LSE (natural log).
//
// Per block, 256 threads, any warp width that is a multiple of 16 (32 on NVIDIA, 64 on CDNA):
// - the tile's 16 q rows are staged once; then, per step, 16 KV tokens are staged, each KV row
//   read from global memory once per head tile in 16-byte chunks (element-wise where rows are
//   not 16-byte aligned);
// - S = q k^T (16 x 16): thread (head quad, token quad, lane of 16) sums a 4 x 4 block over every
//   16th chunk of the row; a reduce-scatter across the 16 lanes leaves each lane one score;
// - online softmax: 16 lanes per head, running max and sum in fp32;
// - O += P V: each thread owns a fixed (heads x columns) block of fp32 accumulators.
// The S and PV steps are 16 x 16 x Lk and 16 x 16 x Lv matrix products over 16-bit shared-memory
// tiles: the shape a per-platform MMA building block (MFMA on CDNA, mma.sync on NVIDIA) replaces
// for issue 8 without changing the staging, the softmax or the outputs.
//
// Shared-memory row layout, widths from Lv and R separately (never from Lk, UPSTREAM S5):
//   [Lv values | zeros to next_pow2(Lv) | R rope | zeros to the rope tile]
// Only chunks holding data are read: values, then rope.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>
#include <limits>

#include "core/dtype_convert.hpp"
#include "device/kernels/lds_chunk.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

inline constexpr int kPartialThreads = kHeadTile * kKvTile;

struct PartialParams {
  const void* q;                   // [total_q_tokens, padded_heads, lk], q dtype
  const void* kv;                  // [slots, lk], kv dtype
  const std::int32_t* kv_indices;  // flat slot of each request's tokens, from kv_indptr[b]
  const std::int32_t* kv_indptr;   // [batch + 1]
  const std::int32_t* qo_indptr;   // [batch + 1]
  float* partial_o;                // [total_q_tokens, padded_heads, num_splits, lv]
  float* partial_lse;              // [total_q_tokens, padded_heads, num_splits]
  int batch;
  int padded_heads;
  int lv;
  int rope;
  int rope_tile;  // rope_tile_width(rope)
  int num_splits;
  float score_scale;  // softmax scale * kv_scale: scores are taken against the cache codes
  float value_scale;  // kv_scale, applied once to the normalised output
  bool q_vector;      // q rows can be read in aligned 16-byte chunks
  bool kv_vector;     // cache rows likewise
};

namespace partial {

inline constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
inline constexpr int kChunk = 8;  // staged 16-bit codes per 16-byte chunk

// The request holding query token `token`: the last b with qo_indptr[b] <= token.
__device__ inline int request_of(const std::int32_t* qo_indptr, int batch, int token) {
  int lo = 0;
  int hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (qo_indptr[mid] <= token) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

template <int kValueTile>
struct RowLayout {
  int lv;
  int rope;
  int stride;        // staged codes per row: kValueTile + rope tile
  int value_chunks;  // chunks holding values: lv / 8
  int rope_chunks;   // chunks holding rope: ceil(rope / 8)

  __device__ int used_chunks() const { return value_chunks + rope_chunks; }
  // Offset within the row of the ch-th chunk that holds data.
  __device__ int chunk_offset(int ch) const {
    return kChunk * (ch < value_chunks ? ch : kValueTile / kChunk + (ch - value_chunks));
  }
  // Staged position of element e of a global latent row.
  __device__ int staged_index(int e) const { return e < lv ? e : kValueTile + (e - lv); }
};

// Stages `rows` latent rows of stored type T into `lds`; row_ptr(r) is the row's first element in
// global memory, or nullptr for a row to fill with zeros (so that P = 0 never meets stale NaN).
template <class T, int kValueTile, class RowPtr>
__device__ void stage_rows(std::uint16_t* lds, int rows, const RowLayout<kValueTile>& layout, bool vector,
                           RowPtr row_ptr) {
  const int tid = static_cast<int>(threadIdx.x);
  if (vector) {
    constexpr int kElems = kChunkElems<T>;
    const int units = (layout.lv + layout.rope) / kElems;
    for (int idx = tid; idx < rows * units; idx += kPartialThreads) {
      const int r = idx / units;
      const int e0 = (idx - r * units) * kElems;  // never straddles values and rope: lv % 16 == 0
      std::uint16_t* dst = lds + r * layout.stride + layout.staged_index(e0);
      const T* src = row_ptr(r);
      if (src != nullptr) {
        store_staged_chunk<T>(*reinterpret_cast<const Chunk16*>(src + e0), dst);
      } else {
        store_zero_chunk<T>(dst);
      }
    }
  } else {
    // Every staged position the compute loops read, so a rope not filling its last chunk is
    // padded with zeros.
    const int used = kChunk * layout.used_chunks();
    for (int idx = tid; idx < rows * used; idx += kPartialThreads) {
      const int r = idx / used;
      const int k = idx - r * used;
      const int d = layout.chunk_offset(k / kChunk) + k % kChunk;
      const bool is_value = d < kValueTile;
      const int e = is_value ? d : layout.lv + (d - kValueTile);
      const T* src = row_ptr(r);
      const bool present = src != nullptr && (is_value || d - kValueTile < layout.rope);
      lds[r * layout.stride + d] = present ? staged_code(src[e]) : std::uint16_t{0};
    }
  }
}

// Sums v over each aligned group of 2*kHalf lanes and scatters the sums: afterwards v[0] of group
// lane l holds the group's sum of the original v[l]. One shuffle per halving step and value kept,
// 15 for 16 values, where 16 separate reductions would take 64.
template <int kHalf, int kN>
__device__ inline void reduce_scatter(float (&v)[kN], int lane) {
  const bool upper = (lane & kHalf) != 0;
#pragma unroll
  for (int k = 0; k < kHalf; ++k) {
    // Both loaded before the selects: a select between v[k] and v[k + kHalf] themselves becomes
    // a load through a runtime index, which moves v out of registers into scratch memory.
    const float lo = v[k];
    const float hi = v[k + kHalf];
    const float send = upper ? lo : hi;
    const float keep = upper ? hi : lo;
    v[k] = keep + gpu::shuffle_xor(send, kHalf);
  }
  if constexpr (kHalf > 1) reduce_scatter<kHalf / 2>(v, lane);
}

// Scaled scores of the 16 heads x kKvTile tokens into p_tile[token][head]; tokens at or past
// n_valid are -inf. Thread (head quad, token quad, lane of 16).
template <class Q, class S, int kValueTile>
__device__ void score_tile(const std::uint16_t* q_tile, const std::uint16_t* kv_tile,
                           const RowLayout<kValueTile>& layout, int n_valid, float score_scale,
                           float (*p_tile)[kHeadTile]) {
  constexpr int kQuad = 4;
  constexpr int kLanes = 16;
  static_assert(kPartialThreads == (kHeadTile / kQuad) * (kKvTile / kQuad) * kLanes);
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kLanes;
  const int group = tid / kLanes;
  const int h0 = group / (kKvTile / kQuad) * kQuad;
  const int n0 = group % (kKvTile / kQuad) * kQuad;

  float acc[kQuad * kQuad] = {};
  for (int ch = lane; ch < layout.used_chunks(); ch += kLanes) {
    const int offset = layout.chunk_offset(ch);
    float qv[kQuad][kChunk];
    float kv[kQuad][kChunk];
#pragma unroll
    for (int i = 0; i < kQuad; ++i) load_staged<Q, kChunk>(q_tile + (h0 + i) * layout.stride + offset, qv[i]);
#pragma unroll
    for (int j = 0; j < kQuad; ++j) load_staged<S, kChunk>(kv_tile + (n0 + j) * layout.stride + offset, kv[j]);
#pragma unroll
    for (int i = 0; i < kQuad; ++i) {
#pragma unroll
      for (int j = 0; j < kQuad; ++j) {
#pragma unroll
        for (int e = 0; e < kChunk; ++e) acc[i * kQuad + j] += qv[i][e] * kv[j][e];
      }
    }
  }
  reduce_scatter<kLanes / 2>(acc, lane);
  const int n = n0 + lane % kQuad;
  const int h = h0 + lane / kQuad;
  p_tile[n][h] = n < n_valid ? acc[0] * score_scale : kMinusInf;
}

// Online softmax over one tile: thread (head tid / 16, token tid % 16). Turns the head's scores
// into exp(s - m_new), keeps the running max m and sum l (identical in the head's 16 lanes), and
// publishes the factor alpha = exp(m_old - m_new) that rescales the head's accumulated output.
// Every tile holds a visible token, so m_new is finite and the first alpha is exp(-inf) = 0.
__device__ inline void update_softmax(float (*p_tile)[kHeadTile], float* row_alpha, float& m_run, float& l_run) {
  static_assert(kPartialThreads == kHeadTile * kKvTile && kKvTile <= 16);
  const int tid = static_cast<int>(threadIdx.x);
  const int h = tid / kKvTile;
  const int n = tid % kKvTile;
  const float s = p_tile[n][h];
  const float m_new = fmaxf(m_run, gpu::warp_reduce(s, gpu::Max<float>{}, kKvTile));
  const float alpha = expf(m_run - m_new);
  const float e = expf(s - m_new);
  l_run = l_run * alpha + gpu::warp_reduce(e, gpu::Sum<float>{}, kKvTile);
  m_run = m_new;
  p_tile[n][h] = e;
  if (n == 0) row_alpha[h] = alpha;
}

// The fp32 output accumulators: each thread owns kHeads consecutive heads x kCols consecutive
// value columns (register arrays, indexed by constants only).
template <class S, int kValueTile>
struct PvAccumulator {
  static constexpr int kCols = kValueTile / kHeadTile < kChunk ? kValueTile / kHeadTile : kChunk;
  static constexpr int kHeads = kValueTile / kHeadTile / kCols;
  static constexpr int kColThreads = kValueTile / kCols;
  static_assert(kColThreads * (kHeadTile / kHeads) == kPartialThreads);

  float acc[kHeads][kCols] = {};
  int head0;
  int col0;
  bool active;  // col0 < lv: the columns past Lv in the value tile are never read or written

  __device__ PvAccumulator(int tid, int lv)
      : head0(tid / kColThreads * kHeads), col0(tid % kColThreads * kCols), active(col0 < lv) {}

  __device__ void accumulate(const std::uint16_t* kv_tile, int stride, const float (*p_tile)[kHeadTile],
                             const float* row_alpha) {
    if (!active) return;
#pragma unroll
    for (int i = 0; i < kHeads; ++i) {
      const float alpha = row_alpha[head0 + i];
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[i][c] *= alpha;
    }
#pragma unroll 4
    for (int n = 0; n < kKvTile; ++n) {
      float v[kCols];
      load_staged<S, kCols>(kv_tile + n * stride + col0, v);
#pragma unroll
      for (int i = 0; i < kHeads; ++i) {
        const float pn = p_tile[n][head0 + i];
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[i][c] += pn * v[c];
      }
    }
  }

  // Head h of the tile writes its row at out + h * head_stride.
  __device__ void store(float* out, std::int64_t head_stride, const float* row_out_scale) const {
    if (!active) return;
#pragma unroll
    for (int i = 0; i < kHeads; ++i) {
      float* dst = out + (head0 + i) * head_stride + col0;
      const float scale = row_out_scale[head0 + i];
#pragma unroll
      for (int c = 0; c < kCols; ++c) dst[c] = acc[i][c] * scale;
    }
  }
};

}  // namespace partial

template <class Q, class KV, int kValueTile>
__global__ void __launch_bounds__(kPartialThreads) split_kv_partial_kernel(PartialParams p) {
  using partial::kChunk;
  using partial::kMinusInf;
  using S = staged_t<KV>;
  static_assert(kValueTile >= 16 && kValueTile <= kMaxValueTile && (kValueTile & (kValueTile - 1)) == 0);
  constexpr int kRowCapacity = kValueTile + kMaxRopeTile;
  __shared__ Chunk16 q_chunks[kHeadTile * kRowCapacity / kChunk];
  __shared__ Chunk16 kv_chunks[kKvTile * kRowCapacity / kChunk];
  __shared__ float p_tile[kKvTile][kHeadTile];
  __shared__ float row_alpha[kHeadTile];
  __shared__ float row_out_scale[kHeadTile];
  std::uint16_t* q_tile = reinterpret_cast<std::uint16_t*>(q_chunks);
  std::uint16_t* kv_tile = reinterpret_cast<std::uint16_t*>(kv_chunks);

  const int tid = static_cast<int>(threadIdx.x);
  const int head_tiles = p.padded_heads / kHeadTile;
  const int token = static_cast<int>(blockIdx.x) / head_tiles;
  const int head0 = static_cast<int>(blockIdx.x) % head_tiles * kHeadTile;
  const int split = static_cast<int>(blockIdx.y);
  const int lk = p.lv + p.rope;

  // The token's visible range (causal, aligned bottom-right) and this split's share of it. Splits
  // cut the request's whole KV range in kKvTile-aligned pieces, so a row that sees fewer tokens
  // than the request holds can find its last splits empty.
  const int b = partial::request_of(p.qo_indptr, p.batch, token);
  const int kv_begin = p.kv_indptr[b];
  const int kv_len = p.kv_indptr[b + 1] - kv_begin;
  const int q_len = p.qo_indptr[b + 1] - p.qo_indptr[b];
  const int visible = kv_len - q_len + (token - p.qo_indptr[b]) + 1;
  const int per_split = ((kv_len + p.num_splits - 1) / p.num_splits + kKvTile - 1) / kKvTile * kKvTile;
  const std::int64_t begin = std::int64_t{split} * per_split;
  const std::int64_t end = begin + per_split < visible ? begin + per_split : visible;

  const std::int64_t row0 = std::int64_t{token} * p.padded_heads + head0;  // (token, head0) row
  float* lse_out = p.partial_lse + row0 * p.num_splits + split;            // head h at [h * num_splits]
  if (begin >= end) {
    // Nothing visible in this split: the merge skips an LSE of -inf and never reads its O.
    if (tid < kHeadTile) lse_out[tid * p.num_splits] = kMinusInf;
    return;
  }

  const partial::RowLayout<kValueTile> layout{p.lv, p.rope, kValueTile + p.rope_tile, p.lv / kChunk,
                                              (p.rope + kChunk - 1) / kChunk};
  const Q* q_rows = static_cast<const Q*>(p.q) + row0 * lk;
  partial::stage_rows<Q>(q_tile, kHeadTile, layout, p.q_vector, [&](int r) { return q_rows + std::int64_t{r} * lk; });

  const KV* cache = static_cast<const KV*>(p.kv);
  float m_run = kMinusInf;  // of head tid / kKvTile (the softmax mapping)
  float l_run = 0.0f;
  partial::PvAccumulator<S, kValueTile> pv(tid, p.lv);
  for (std::int64_t tile = begin; tile < end; tile += kKvTile) {
    const int n_valid = static_cast<int>(end - tile < kKvTile ? end - tile : kKvTile);
    const std::int32_t* slots = p.kv_indices + kv_begin + tile;
    partial::stage_rows<KV>(kv_tile, kKvTile, layout, p.kv_vector, [&](int r) -> const KV* {
      return r < n_valid ? cache + std::int64_t{slots[r]} * lk : nullptr;
    });
    __syncthreads();
    partial::score_tile<Q, S>(q_tile, kv_tile, layout, n_valid, p.score_scale, p_tile);
    __syncthreads();
    partial::update_softmax(p_tile, row_alpha, m_run, l_run);
    __syncthreads();
    pv.accumulate(kv_tile, layout.stride, p_tile, row_alpha);
    __syncthreads();  // the next tile overwrites kv_tile and p_tile
  }

  if (tid % kKvTile == 0) {
    const int h = tid / kKvTile;
    lse_out[h * p.num_splits] = m_run + logf(l_run);
    row_out_scale[h] = p.value_scale / l_run;
  }
  __syncthreads();
  const std::int64_t head_stride = std::int64_t{p.num_splits} * p.lv;
  pv.store(p.partial_o + (row0 * p.num_splits + split) * p.lv, head_stride, row_out_scale);
}

}  // namespace mlacheck::kernels
