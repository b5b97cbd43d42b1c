#pragma once
// One row group's attention, the unit both decode paths are built from: up to kRowTiles row tiles
// (16 padded heads of one query token each) against a run of kv tokens, by an online softmax over
// KV tiles, ending in O (normalised by its own sum) and LSE (natural log). Split-KV stage 1 runs it
// once per block on its split's share of a request's kv; the persistent kernel runs it for every
// row group of each work item it walks.
//
// Per KV tile of kStageTokens tokens (attention_geometry.hpp has the numbers):
//   1. wait for the tile's copies, barrier; issue the copies of the tile kStages - 1 ahead; an fp8
//      cache's bytes are widened into the code tile (the keys too, then a barrier, unless the fp8
//      score products read them as bytes);
//   2. S = q k^T on the matrix cores (mma_tile.hpp), the warps' partial sums into shared memory,
//      barrier;
//   3. online softmax in fp32 (log2 units), P rounded to the MMA type, barrier;
//   4. O = O * alpha + P V on the matrix cores, accumulated in fp32 registers.
// Each row tile carries its own causal limit, so the query tokens of a request share one KV stream.
// The KV copies of later tiles stay in flight through steps 2-4.
// The precision faults (precision_fault_points.hpp) sit where their intermediates are stored or
// computed: the softmax scale in attend(), row max, row sum and the dropped key in softmax(), the
// accumulator after each tile, the LSE and a split's partial O in write().
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_convert.hpp"
#include "device/kernels/async_copy.hpp"
#include "device/kernels/attention_geometry.hpp"
#include "device/kernels/latent_staging.hpp"
#include "device/kernels/lds_chunk.hpp"
#include "device/kernels/mma_tile.hpp"
#include "device/kernels/precision_fault_points.hpp"
#include "device/platform/gpu_runtime.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

// What every row group of a launch shares.
struct AttentionParams {
  const void* kv;  // [slots, lk], kv dtype
  int lv;
  int rope;
  int value_tile;     // value_tile_width(lv), or next_pow2(Lk) under tile-width-from-lk
  int rope_tile;      // rope_tile_width(rope), or 0 under tile-width-from-lk
  float score_scale;  // softmax scale * kv_scale * q_scale (core/code_scales.hpp): scores are taken against the codes
  float value_scale;  // kv_scale, applied once to the normalised output
  bool q_vector;      // q rows can be read in aligned 16-byte chunks
  bool kv_vector;     // cache rows likewise
  // q and cache in the fp8 variant this platform's fp8 products take (kPlatformFp8MmaDtype) with
  // rows the fp8 steps fit (fp8_steps_fit): the scores come from those products where the GPU has
  // them (mma::kHasFp8Mma), from the widened codes elsewhere.
  bool fp8_scores;
  // The precision faults switched on (precision_fault_points.hpp: PrecisionFaultBit); 0 for the
  // correct kernels.
  std::uint32_t precision;
  bool cache_offset_32bit;  // fault cache-offset-32bit (UPSTREAM R4): row offsets wrap at 2^32 bytes
};

// Where a row tile's results go: head h's O row (Lv values of Out) at o + h * o_head_stride, its
// LSE at lse + h * lse_head_stride.
template <class Out>
struct RowTileOut {
  Out* o;
  std::int64_t o_head_stride;
  float* lse;
  std::int64_t lse_head_stride;
};

// kFp8Products: whether the instance may take the fp8 score products at all (a caller whose own
// registers leave no room for their temporaries compiles them out and widens the keys instead).
template <class Q, class KV, int kRowTiles, bool kFp8Products = true>
struct RowGroupAttention {
  using S = mma_type_t<Q, KV>;
  static constexpr bool kMixed = splits_q_v<Q, KV>;
  static constexpr bool kFp8Cache = sizeof(KV) == 1;
  using G = AttentionGeometry<kRowTiles, kMixed, kFp8Cache>;
  using Shared = AttentionShared<kRowTiles, kMixed, kFp8Cache>;
  static_assert(kSharedFitsTheCu<kRowTiles, kMixed, kFp8Cache>,
                "the blocks meant to share a CU do not fit its shared memory");
  static_assert(offsetof(Shared, kv) % 16 == 0 && offsetof(Shared, scores) % 16 == 0 &&
                    offsetof(Shared, p) % 16 == 0 && offsetof(Shared, kv_bytes) % 16 == 0,
                "tiles read by matrix loads or 8- and 16-byte accesses must be 16-byte aligned");
  // The instances that can take the fp8 score products on this target.
  static constexpr bool kFp8ScoresCompiled = kFp8Products && mma::kHasFp8Mma && std::is_same_v<Q, mma::Fp8MmaType> &&
                                             std::is_same_v<KV, mma::Fp8MmaType>;
  static constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  static constexpr float kLog2e = 1.4426950408889634f;

  // What attend() leaves in registers: each warp's block of unnormalised output, and the softmax
  // state of the row this thread serves (row tid / kThreadsPerRow).
  struct State {
    mma::Acc o[kRowTiles][G::kValueColsPerWarp];
    float m_run;  // log2 units
    float l_run;
  };

  // Attends the row tiles to the kv tokens in cache slots slots[0 .. n_tokens), n_tokens >= 0 (0:
  // every row saw nothing). Every thread of the block calls it with the same arguments.
  static __device__ State attend(Shared& sh, const AttentionParams& p, const RowTiles<kRowTiles>& rows,
                                 const std::int32_t* slots, std::int64_t n_tokens) {
    const int tid = static_cast<int>(threadIdx.x);
    const LatentLayout layout(p.lv, p.rope, p.value_tile, p.rope_tile);
    const bool fp8_scores = kFp8ScoresCompiled && p.fp8_scores;
    const int n_tiles = static_cast<int>((n_tokens + kStageTokens - 1) / kStageTokens);
    const auto fetch_slot = [&](int tile) -> std::int32_t {
      const std::int64_t pos = std::int64_t{tile} * kStageTokens + tid;
      return tid < kStageTokens && pos < n_tokens ? slots[pos] : -1;
    };

    __syncthreads();  // the previous row group's reads of sh are done
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r) {
      if (tid == r) {
        sh.tile_q[r] = rows.tile[r].q;
        sh.tile_out_row[r] = rows.tile[r].out_row;
        sh.tile_limit[r] = rows.tile[r].limit;
        sh.rescaled_tile[r] = -1;
      }
    }
#pragma unroll
    for (int s = 0; s < G::kStages; ++s) {
      const std::int32_t slot = fetch_slot(s);
      if (tid < kStageTokens) sh.slot_ring[s][tid] = slot;
    }
    if (fp8_scores) {
      zero_fp8_step_padding(q_bytes(sh), G::kRows, layout);  // q's bytes take the q tile
    } else {
#pragma unroll
      for (int plane = 0; plane < G::kPlanes; ++plane) zero_rope_padding(q_tile(sh, plane), G::kRows, layout);
    }
#pragma unroll
    for (int s = 0; s < G::kCodeTiles; ++s) zero_rope_padding(kv_tile(sh, s), kStageTokens, layout);
#pragma unroll
    for (int s = 0; s < G::kByteStages; ++s) zero_fp8_step_padding(kv_bytes(sh, s), kStageTokens, layout);
    const float score_scale = taken_softmax_scale(p.score_scale, p.precision) * kLog2e;
    if (tid < G::kRows) sh.row_score_scale[tid] = score_scale;
    __syncthreads();  // tile_q, the slot ring and the score scales are published

    if constexpr (kMixed) {
      stage_split_q_rows<Q, S, G::kRows>(q_tile(sh, 0), q_tile(sh, 1), layout, sh.tile_q, sh.row_q_max,
                                         sh.row_score_scale, score_scale);
    } else if constexpr (kFp8ScoresCompiled) {
      if (fp8_scores) {
        stage_q_bytes<Q, G::kRows>(q_bytes(sh), layout, p.q_vector, sh.tile_q, p.kv);
      } else {
        stage_q_rows<Q, G::kRows>(q_tile(sh, 0), layout, p.q_vector, sh.tile_q, p.kv);
      }
    } else {
      stage_q_rows<Q, G::kRows>(q_tile(sh, 0), layout, p.q_vector, sh.tile_q, p.kv);
    }
    const KV* cache = static_cast<const KV*>(p.kv);
#pragma unroll
    for (int s = 0; s + 1 < G::kStages; ++s) {
      if (s < n_tiles) stage_tile(sh, layout, p, cache, s);
      commit_copies();  // group s: tile s (and q with group 0)
    }

    State st{};
    st.m_run = kMinusInf;
    st.l_run = 0.0f;
    // The slots of tile t + kStages, read from global memory a whole tile before the ring needs
    // them, so the read's latency never holds up the end of a tile.
    std::int32_t held_slot = fetch_slot(G::kStages);
    for (int t = 0; t < n_tiles; ++t) {
      const int buffer = t % G::kStages;
      if constexpr (G::kStages == 1) {
        stage_tile(sh, layout, p, cache, 0);
        commit_copies();
      }
      wait_copies<(G::kStages >= 2 ? G::kStages - 2 : 0)>();  // tile t has landed for this thread
      __syncthreads();  // ... for all; every warp is past tile t - 1, so its buffer may be refilled
      if constexpr (G::kStages >= 2) {
        const int ahead = t + G::kStages - 1;
        if (ahead < n_tiles) stage_tile(sh, layout, p, cache, ahead % G::kStages);
        commit_copies();  // one group per tile, empty past the end, so the wait count holds
      }
      const std::int32_t pending_slot = fetch_slot(t + G::kStages + 1);

      // The codes the products read: the stage itself, or an fp8 stage widened into the one code
      // tile (free: every warp is past the previous tile's P V). The fp8 score products read the
      // keys as bytes, so only the values are widened, and the barrier after the scores publishes them.
      const std::uint16_t* codes = kv_tile(sh, kFp8Cache ? 0 : buffer);
      if constexpr (kFp8Cache) {
        widen_kv_tile<S, KV>(kv_tile(sh, 0), kv_bytes(sh, buffer), layout, fp8_scores);
        if (!fp8_scores) __syncthreads();
      }
      if constexpr (kFp8ScoresCompiled) {
        if (fp8_scores) {
          scores_fp8(sh, layout, kv_bytes(sh, buffer));
        } else {
          scores(sh, layout, codes);
        }
      } else {
        scores(sh, layout, codes);
      }
      __syncthreads();
      softmax(sh, t, st, p.precision);
      __syncthreads();
      accumulate(sh, layout, codes, t, st);
      if ((p.precision & kRunningOAny) != 0) keep_running_o(st, p.precision);
      // The slots of tile t + kStages, stored once this tile no longer needs the ring entry.
      if (tid < kStageTokens) sh.slot_ring[buffer][tid] = held_slot;
      held_slot = pending_slot;
      if constexpr (G::kStages == 1) __syncthreads();  // the one buffer and ring entry are refilled next
    }
    wait_copies<0>();  // with no tile at all, q's copies are still in flight
    return st;
  }

  // Writes each used row tile's LSE and normalised O (times value_scale) through out(out_row) ->
  // RowTileOut<Out>. A row that saw no token gets O = 0 and LSE = -inf. Every thread calls it.
  template <class Out, class OutFn>
  static __device__ void write(Shared& sh, const State& st, const AttentionParams& p, OutFn&& out) {
    const int tid = static_cast<int>(threadIdx.x);
    const int row = tid / G::kThreadsPerRow;
    if (tid % G::kThreadsPerRow == 0) {
      sh.row_l[row] = st.l_run;
      sh.row_m[row] = st.m_run;
    }
    __syncthreads();
    if (tid < G::kRows && sh.tile_q[tid / kHeadTile] != nullptr) {
      const RowTileOut<Out> dst = out(sh.tile_out_row[tid / kHeadTile]);
      const float l = sh.row_l[tid];
      // A NaN sum is kept: it poisons the row as the NaN input behind it should.
      dst.lse[(tid % kHeadTile) * dst.lse_head_stride] =
          l == 0.0f ? kMinusInf : computed_lse((sh.row_m[tid] + log2f(l)) * 0.6931471805599453f, p.precision);
    }
    const int lane = mma::lane();
    const int warp = mma::warp();
    const int value_steps = p.lv / 16;
    // Only a split's partial O (fp32) can be stored in a narrower type than the kernel writes.
    const bool partial_o_rounded = std::is_same_v<Out, float> && (p.precision & kPartialOBf16) != 0;
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r) {
      if (sh.tile_q[r] == nullptr) continue;
      const RowTileOut<Out> dst = out(sh.tile_out_row[r]);
      float factor[mma::Acc::kElems];
#pragma unroll
      for (int i = 0; i < mma::Acc::kElems; ++i) {
        const float l = sh.row_l[r * kHeadTile + mma::acc_row(lane, i)];
        factor[i] = l == 0.0f ? 0.0f : p.value_scale / l;
      }
#pragma unroll
      for (int j = 0; j < G::kValueColsPerWarp; ++j) {
        const int c = warp + G::kWarps * j;
        if (c >= value_steps) continue;
#pragma unroll
        for (int i = 0; i < mma::Acc::kElems; ++i) {
          const int h = mma::acc_row(lane, i);
          float v = factor[i] == 0.0f ? 0.0f : st.o[r][j].v[i] * factor[i];
          if (partial_o_rounded) v = stored_partial_o(v, p.precision);
          dst.o[h * dst.o_head_stride + 16 * c + mma::acc_col(lane, i)] = from_float<Out>(v);
        }
      }
    }
  }

 private:
  static __device__ std::uint16_t* q_tile(Shared& sh, int plane) { return reinterpret_cast<std::uint16_t*>(sh.q[plane]); }
  static __device__ std::uint16_t* kv_tile(Shared& sh, int stage) { return reinterpret_cast<std::uint16_t*>(sh.kv[stage]); }
  static __device__ std::uint16_t* p_tile(Shared& sh, int plane) { return reinterpret_cast<std::uint16_t*>(sh.p[plane]); }
  static __device__ std::uint8_t* q_bytes(Shared& sh) { return reinterpret_cast<std::uint8_t*>(sh.q[0]); }
  static __device__ std::uint8_t* kv_bytes(Shared& sh, int stage) {
    if constexpr (kFp8Cache) {
      return reinterpret_cast<std::uint8_t*>(sh.kv_bytes.tile[stage]);
    } else {
      return nullptr;
    }
  }

  // Issues the copies of KV tile `stage` of the ring from its slots: the MMA codes of a 16-bit
  // cache, the bytes of an fp8 one.
  static __device__ void stage_tile(Shared& sh, const LatentLayout& layout, const AttentionParams& p, const KV* cache,
                                    int stage) {
    void* tile = kFp8Cache ? static_cast<void*>(kv_bytes(sh, stage)) : static_cast<void*>(kv_tile(sh, stage));
    stage_kv_tile<KV>(tile, layout, p.kv_vector, p.cache_offset_32bit, cache, sh.slot_ring[stage]);
  }

  // S of this tile: warp (block, k group) sums its k steps of its 16 x 16 tiles into
  // scores[k group]; the softmax adds the groups.
  static __device__ void scores(Shared& sh, const LatentLayout& layout, const std::uint16_t* kv) {
    const int warp = mma::warp();
    const int block = warp % G::kScoreBlocks;
    const int group = warp / G::kScoreBlocks;
    const int row0 = block * G::kScoreRowTiles * kHeadTile;
    mma::Acc acc[G::kScoreRowTiles][G::kScoreColTiles];
    for (int step = group; step < layout.k_steps; step += G::kScoreKGroups) {
      const int k0 = layout.k_offset(step);
      mma::FragB<S> b[G::kScoreColTiles];
#pragma unroll
      for (int c = 0; c < G::kScoreColTiles; ++c) b[c] = mma::load_bt<S>(kv + 16 * c * layout.stride + k0, layout.stride);
#pragma unroll
      for (int r = 0; r < G::kScoreRowTiles; ++r) {
#pragma unroll
        for (int plane = 0; plane < G::kPlanes; ++plane) {
          const mma::FragA<S> a =
              mma::load_a<S>(q_tile(sh, plane) + (row0 + 16 * r) * layout.stride + k0, layout.stride);
#pragma unroll
          for (int c = 0; c < G::kScoreColTiles; ++c) mma::mma(acc[r][c], a, b[c]);
        }
      }
    }
    store_partial_scores(sh, acc, group, row0);
  }

  // A warp's block of partial scores into its k group's sums.
  static __device__ void store_partial_scores(Shared& sh, const mma::Acc (&acc)[G::kScoreRowTiles][G::kScoreColTiles],
                                              int group, int row0) {
#pragma unroll
    for (int r = 0; r < G::kScoreRowTiles; ++r) {
#pragma unroll
      for (int c = 0; c < G::kScoreColTiles; ++c) {
        mma::store(acc[r][c], &sh.scores[group][row0 + 16 * r][16 * c], G::kScoreStride);
      }
    }
  }

  // scores() on the fp8 matrix products: q's and the keys' bytes in 32-wide steps, whose zero
  // padding (zero_fp8_step_padding) adds nothing.
  static __device__ void scores_fp8(Shared& sh, const LatentLayout& layout, const std::uint8_t* kv) {
#if MLACHECK_FP8_MMA
    const int warp = mma::warp();
    const int block = warp % G::kScoreBlocks;
    const int group = warp / G::kScoreBlocks;
    const int row0 = block * G::kScoreRowTiles * kHeadTile;
    const std::uint8_t* q = q_bytes(sh);
    mma::Acc acc[G::kScoreRowTiles][G::kScoreColTiles];
    for (int step = group; step < layout.fp8_k_steps; step += G::kScoreKGroups) {
      const int k0 = layout.fp8_k_offset(step);
      mma::Fp8FragB b[G::kScoreColTiles];
#pragma unroll
      for (int c = 0; c < G::kScoreColTiles; ++c) {
        b[c] = mma::load_bt_fp8(kv + 16 * c * layout.byte_stride + k0, layout.byte_stride);
      }
#pragma unroll
      for (int r = 0; r < G::kScoreRowTiles; ++r) {
        const mma::Fp8FragA a = mma::load_a_fp8(q + (row0 + 16 * r) * layout.byte_stride + k0, layout.byte_stride);
#pragma unroll
        for (int c = 0; c < G::kScoreColTiles; ++c) mma::mma_fp8(acc[r][c], a, b[c]);
      }
    }
    store_partial_scores(sh, acc, group, row0);
#else
    (void)sh;
    (void)layout;
    (void)kv;
#endif
  }

  // Online softmax over tile t: thread (row, columns c0 ..) adds the k groups' partial scores,
  // masks the tokens past its row tile's limit, and turns the scores into P = exp2(s - m_new) in
  // the MMA type. The running max and sum are identical in the row's kThreadsPerRow threads; the
  // first publishes alpha = exp2(m_old - m_new), which rescales the row's accumulated output. A row
  // that has seen nothing keeps m = -inf and takes exponents against 0, so P = 0 and alpha = 0.
  // `precision`: the precision faults that sit here (row max, row sum, the dropped key).
  static __device__ void softmax(Shared& sh, int t, State& st, std::uint32_t precision) {
    constexpr int kCols = G::kColsPerThread;
    const int tid = static_cast<int>(threadIdx.x);
    const int row = tid / G::kThreadsPerRow;
    const int c0 = tid % G::kThreadsPerRow * kCols;
    const int visible = sh.tile_limit[row / kHeadTile] - t * kStageTokens;
    const float scale = sh.row_score_scale[row];
    float s[kCols];
    float tile_max = kMinusInf;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      float sum = 0.0f;
#pragma unroll
      for (int g = 0; g < G::kScoreKGroups; ++g) sum += sh.scores[g][row][c0 + j];
      s[j] = c0 + j < visible ? sum * scale : kMinusInf;
      tile_max = fmaxf(tile_max, s[j]);
    }
    tile_max = gpu::warp_reduce(tile_max, gpu::Max<float>{}, G::kThreadsPerRow);
    const float m_new = fmaxf(st.m_run, tile_max);
    const float m_base = m_new == kMinusInf ? 0.0f : m_new;
    const float alpha = exp2f(st.m_run - m_base);

    struct alignas(2 * kCols) Codes {
      std::uint16_t code[kCols];
    };
    Codes hi{};
    Codes lo{};
    float sum = 0.0f;
    // Decided once per tile, so the clean kernel's loop carries one select for its first column.
    const bool drop_first = !key_in_row_sum(std::int64_t{t} * kStageTokens + c0, precision);
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const float e = exp2f(s[j] - m_base);
      sum += j == 0 && drop_first ? 0.0f : e;
      const S rounded = from_float<S>(e);
      hi.code[j] = rounded.bits;
      if constexpr (kMixed) lo.code[j] = from_float<S>(e - to_float(rounded)).bits;
    }
    *reinterpret_cast<Codes*>(p_tile(sh, 0) + row * G::kPStride + c0) = hi;
    if constexpr (kMixed) *reinterpret_cast<Codes*>(p_tile(sh, 1) + row * G::kPStride + c0) = lo;
    st.l_run =
        stored_row_sum(st.l_run * alpha + gpu::warp_reduce(sum, gpu::Sum<float>{}, G::kThreadsPerRow), precision);
    st.m_run = stored_row_max(m_new, precision);
    if (tid % G::kThreadsPerRow == 0) {
      sh.row_alpha[row] = alpha;
      // Every thread that stores writes the same t: the row tile's output needs rescaling this tile.
      if (alpha != 1.0f) sh.rescaled_tile[row / kHeadTile] = t;
    }
  }

  // The accumulator as a precision-running-o fault keeps it between tiles.
  static __device__ void keep_running_o(State& st, std::uint32_t precision) {
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
      for (int j = 0; j < G::kValueColsPerWarp; ++j) {
#pragma unroll
        for (int i = 0; i < mma::Acc::kElems; ++i) st.o[r][j].v[i] = stored_running_o(st.o[r][j].v[i], precision);
      }
    }
  }

  // O = O * alpha + P V for this warp's value column tiles of every row tile of tile t. A row tile
  // whose row maxima all stayed put (alpha = 1 exactly, most tiles past the first few) skips the
  // rescale, which changes no bit.
  static __device__ void accumulate(Shared& sh, const LatentLayout& layout, const std::uint16_t* kv, int t, State& st) {
    const int lane = mma::lane();
    const int warp = mma::warp();
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r) {
      if (sh.rescaled_tile[r] != t) continue;
      float alpha[mma::Acc::kElems];
#pragma unroll
      for (int i = 0; i < mma::Acc::kElems; ++i) alpha[i] = sh.row_alpha[r * kHeadTile + mma::acc_row(lane, i)];
#pragma unroll
      for (int j = 0; j < G::kValueColsPerWarp; ++j) {
#pragma unroll
        for (int i = 0; i < mma::Acc::kElems; ++i) st.o[r][j].v[i] *= alpha[i];
      }
    }
#pragma unroll
    for (int kk = 0; kk < kStageTokens / 16; ++kk) {
      mma::FragA<S> a[kRowTiles][G::kPlanes];
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
        for (int plane = 0; plane < G::kPlanes; ++plane) {
          a[r][plane] = mma::load_a<S>(p_tile(sh, plane) + r * kHeadTile * G::kPStride + 16 * kk, G::kPStride);
        }
      }
#pragma unroll
      for (int j = 0; j < G::kValueColsPerWarp; ++j) {
        const int c = warp + G::kWarps * j;
        if (c >= layout.value_steps) continue;
        const mma::FragB<S> b = mma::load_b<S>(kv + 16 * kk * layout.stride + 16 * c, layout.stride);
#pragma unroll
        for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
          for (int plane = 0; plane < G::kPlanes; ++plane) mma::mma(st.o[r][j], a[r][plane], b);
        }
      }
    }
  }
};

}  // namespace mlacheck::kernels
