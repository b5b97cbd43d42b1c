#pragma once
// One head tile's attention, the unit both decode paths are built from: the 16 q rows of one query
// token x 16 padded heads against a run of kv tokens, by an online softmax over kv tiles staged
// through shared memory, ending in O (normalised by its own sum) and LSE (natural log). Split-KV
// stage 1 runs it once per block on its split's share of a row's kv; the persistent kernel runs
// it for every (token, head tile) of each work item it walks.
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

inline constexpr int kHeadTileThreads = kHeadTile * kKvTile;

// What every head tile of a launch shares.
struct HeadTileParams {
  const void* kv;  // [slots, lk], kv dtype
  int lv;
  int rope;
  int rope_tile;      // rope_tile_width(rope)
  float score_scale;  // softmax scale * kv_scale: scores are taken against the cache codes
  float value_scale;  // kv_scale, applied once to the normalised output
  bool q_vector;      // q rows can be read in aligned 16-byte chunks
  bool kv_vector;     // cache rows likewise
};

namespace head_tile {

inline constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
inline constexpr int kChunk = 8;  // staged 16-bit codes per 16-byte chunk

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
    for (int idx = tid; idx < rows * units; idx += kHeadTileThreads) {
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
    for (int idx = tid; idx < rows * used; idx += kHeadTileThreads) {
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
  static_assert(kHeadTileThreads == (kHeadTile / kQuad) * (kKvTile / kQuad) * kLanes);
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
  static_assert(kHeadTileThreads == kHeadTile * kKvTile && kKvTile <= 16);
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
  static_assert(kColThreads * (kHeadTile / kHeads) == kHeadTileThreads);

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

  // Head h of the tile writes its row at out + h * head_stride, scaled, in Out (fp32 partials or
  // the output dtype).
  template <class Out>
  __device__ void store(Out* out, std::int64_t head_stride, const float* row_out_scale) const {
    if (!active) return;
#pragma unroll
    for (int i = 0; i < kHeads; ++i) {
      Out* dst = out + (head0 + i) * head_stride + col0;
      const float scale = row_out_scale[head0 + i];
#pragma unroll
      for (int c = 0; c < kCols; ++c) dst[c] = from_float<Out>(acc[i][c] * scale);
    }
  }
};

}  // namespace head_tile

// Shared memory of one head tile's attention; a block reuses it from one head tile to the next.
template <int kValueTile>
struct HeadTileShared {
  static constexpr int kRowCapacity = kValueTile + kMaxRopeTile;
  Chunk16 q_chunks[kHeadTile * kRowCapacity / head_tile::kChunk];
  Chunk16 kv_chunks[kKvTile * kRowCapacity / head_tile::kChunk];
  float p_tile[kKvTile][kHeadTile];
  float row_alpha[kHeadTile];
  float row_out_scale[kHeadTile];
};

// What attend_head_tile leaves in registers: the softmax state of head tid / kKvTile (the
// softmax mapping) and each thread's block of unnormalised output.
template <class S, int kValueTile>
struct HeadTileState {
  float m_run;
  float l_run;
  head_tile::PvAccumulator<S, kValueTile> pv;
};

// Where a head tile's results go: head h's O row (Lv values of Out) at o + h * o_head_stride, its
// LSE at lse + h * lse_head_stride.
template <class Out>
struct HeadTileOut {
  Out* o;
  std::int64_t o_head_stride;
  float* lse;
  std::int64_t lse_head_stride;
};

// Attends the 16 q rows at q_rows (row r at q_rows + r * lk) to the kv tokens in cache slots
// slots[0 .. n_tokens), n_tokens >= 1. Every thread of the block calls it with the same arguments
// (it synchronises). Every read of the shared memory is behind a barrier when it returns, so the
// next call may restage it.
template <class Q, class KV, int kValueTile>
__device__ HeadTileState<staged_t<KV>, kValueTile> attend_head_tile(HeadTileShared<kValueTile>& sh,
                                                                    const HeadTileParams& p, const Q* q_rows,
                                                                    const std::int32_t* slots, std::int64_t n_tokens) {
  using head_tile::kChunk;
  using S = staged_t<KV>;
  static_assert(kValueTile >= 16 && kValueTile <= kMaxValueTile && (kValueTile & (kValueTile - 1)) == 0);
  std::uint16_t* q_tile = reinterpret_cast<std::uint16_t*>(sh.q_chunks);
  std::uint16_t* kv_tile = reinterpret_cast<std::uint16_t*>(sh.kv_chunks);
  const int tid = static_cast<int>(threadIdx.x);
  const int lk = p.lv + p.rope;

  const head_tile::RowLayout<kValueTile> layout{p.lv, p.rope, kValueTile + p.rope_tile, p.lv / kChunk,
                                                (p.rope + kChunk - 1) / kChunk};
  head_tile::stage_rows<Q>(q_tile, kHeadTile, layout, p.q_vector, [&](int r) { return q_rows + std::int64_t{r} * lk; });

  const KV* cache = static_cast<const KV*>(p.kv);
  HeadTileState<S, kValueTile> st{head_tile::kMinusInf, 0.0f, head_tile::PvAccumulator<S, kValueTile>(tid, p.lv)};
  for (std::int64_t tile = 0; tile < n_tokens; tile += kKvTile) {
    const int n_valid = static_cast<int>(n_tokens - tile < kKvTile ? n_tokens - tile : kKvTile);
    const std::int32_t* tile_slots = slots + tile;
    head_tile::stage_rows<KV>(kv_tile, kKvTile, layout, p.kv_vector, [&](int r) -> const KV* {
      return r < n_valid ? cache + std::int64_t{tile_slots[r]} * lk : nullptr;
    });
    __syncthreads();
    head_tile::score_tile<Q, S>(q_tile, kv_tile, layout, n_valid, p.score_scale, sh.p_tile);
    __syncthreads();
    head_tile::update_softmax(sh.p_tile, sh.row_alpha, st.m_run, st.l_run);
    __syncthreads();
    st.pv.accumulate(kv_tile, layout.stride, sh.p_tile, sh.row_alpha);
    __syncthreads();  // the next tile overwrites kv_tile and p_tile
  }
  return st;
}

// Writes a head tile's LSE and normalised O (times value_scale). Every thread calls it.
template <class Out, class S, int kValueTile>
__device__ void write_head_tile(HeadTileShared<kValueTile>& sh, const HeadTileState<S, kValueTile>& st,
                                float value_scale, const HeadTileOut<Out>& out) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid % kKvTile == 0) {
    const int h = tid / kKvTile;
    out.lse[h * out.lse_head_stride] = st.m_run + logf(st.l_run);
    sh.row_out_scale[h] = value_scale / st.l_run;
  }
  __syncthreads();
  st.pv.store(out.o, out.o_head_stride, sh.row_out_scale);
}

}  // namespace mlacheck::kernels
