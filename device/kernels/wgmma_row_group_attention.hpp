#pragma once
// The row-group attention of row_group_attention.hpp on Hopper's warpgroup matrix products
// (wgmma, sm_90a): the same row groups of up to four row tiles (64 rows: 64 heads of one token, or
// 16 heads of four tokens, ...; a group of two leaves the other 32 rows zero), the same online
// softmax and the same rounding points (scores and O in fp32 from exact products of the 16-bit
// codes, P rounded to the MMA type, l summing the unrounded exponentials), so it is held against
// the same oracle; only the order of the fp32 sums differs. It takes the shapes of the models (Lv
// 512 or 256 with a 64-wide rope, q and cache of one 16-bit type; an fp8 cache at Lv 512 with bf16
// or its own fp8 q) on the clean kernel; every other case keeps the portable kernel
// (wgmma_dispatch.hpp). The products run in the MMA type S = mma_type_t<Q, KV> of the portable
// kernel: an fp8 cache and fp8 q are widened exactly into S codes in shared memory, so the products
// and the declared rounding points are those of the portable kernel's widened path.
//
// Block: two warpgroups (256 threads), one block per SM. Shared memory (wgmma_layout.hpp's
// swizzled tiles): q (64 x Lk, 72 KB at Lk 576), three stages of 32 KV tokens (36 KB each; two for
// an fp8 cache, beside its byte stages), and the partial scores the warpgroups exchange (16 KB).
// Per KV tile of 32 tokens:
//   1. wait for the tile's copies, make them visible to the products, barrier;
//   2. S = q k^T: warpgroup g takes half of Lk's k steps (m64n32k16, both operands in shared
//      memory); its partial S goes to shared memory, barrier (after which, too, every warpgroup's
//      products of the previous tile are complete, so the copies of tile t + 2 go into its stage);
//      each warpgroup adds the other's half, S0 + S1 in both (the same bits);
//   3. the online softmax in registers (each thread holds 2 rows x 8 tokens; a row's 4 threads are
//      a quad); P rounded to the MMA type becomes the A registers of the next product in place;
//   4. O = O alpha + P V: warpgroup g owns O's columns g Lv/2 .. (g+1) Lv/2 - 1 (m64n256k16 or
//      m64n128k16, V as the MN-major operand from the same stage the keys came from); left in
//      flight until the next tile's scores are waited for.
// An fp8 cache's tiles arrive as bytes in a ring of three byte stages (issued three tiles ahead,
// after step 1's barrier frees the oldest). While a tile's scores run, each thread widens the
// chunks it copied itself of tile + 1 into the other of two code stages: its warpgroup copies the
// value columns its own P V reads and half the rope, so once its P V of the tile before is waited
// for, nothing else reads them (no barrier: its own copies only; the barriers of step 2 and the
// next step 1 publish the codes). fp8 q is widened into the q tile through registers.
// Thread t of warpgroup g serves rows acc_row(t, .) of row tile t / 32 (its warp).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_convert.hpp"
#include "device/kernels/async_copy.hpp"
#include "device/kernels/attention_geometry.hpp"
#include "device/kernels/latent_staging.hpp"
#include "device/kernels/precision_fault_points.hpp"
#include "device/kernels/row_group_attention.hpp"
#include "device/kernels/wgmma_layout.hpp"
#include "device/kernels/wgmma_products.hpp"
#include "device/kernels/wgmma_sync.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::kernels {

template <int kLv, bool kFp8Cache = false>
struct WgmmaGeometry {
  static_assert(kLv == 512 || kLv == 256, "the Hopper path takes the models' value widths");
  static constexpr int kRope = 64;
  static constexpr int kLk = kLv + kRope;
  static constexpr int kRowTiles = 4;
  static constexpr int kRows = kRowTiles * kHeadTile;  // the products' m of 64
  static constexpr int kThreads = 2 * wgmma::kWarpgroupThreads;
  static constexpr int kTokens = 32;  // per KV tile: S's n
  static constexpr int kStages = kFp8Cache ? 2 : 3;  // code stages the products read
  static constexpr int kByteStages = kFp8Cache ? 3 : 0;
  static constexpr int kKSteps = kLk / 16;
  static constexpr int kHalfKSteps = kKSteps / 2;  // each warpgroup's k steps of S
  static constexpr int kValueHalf = kLv / 2;       // each warpgroup's O columns: P V's n
  static constexpr int kSAcc = kTokens / 2;        // fp32 of S per thread
  static constexpr int kOAcc = kValueHalf / 2;     // fp32 of O per thread
  static constexpr int kQBytes = wgmma::swizzled_tile_bytes(kRows, kLk);
  static constexpr int kStageBytes = wgmma::swizzled_tile_bytes(kTokens, kLk);
  static constexpr int kByteStageBytes = kTokens * kLk;  // fp8 rows as stored, unswizzled
  static constexpr int kByteChunksPerRow = kLk / 16;
  static constexpr int kExchangeBytes = 2 * kSAcc * wgmma::kWarpgroupThreads * 4;
  static constexpr int kChunksPerRow = kLk / 8;
  // KV copies: thread (row tid / 8, lane tid % 8) copies chunk 8 k + lane of its row for every
  // slab k, so 8 neighbours read one 128-byte line of the row. q: (row tid / 4, lane tid % 4).
  static constexpr int kKvCopyLanes = 8;
  static constexpr int kQCopyLanes = 4;
  // fp8 byte copies: warpgroup g copies, and widens, the chunks its own P V reads (value columns
  // g Lv/2 ..) and half the rope's, thread (row t / 4, lane t % 4) of its rows.
  static constexpr int kByteLanes = 4;
  static constexpr int kValueChunksHalf = kValueHalf / 16;
  static constexpr int kRopeChunksHalf = kRope / 16 / 2;
  static_assert(wgmma::kWarpgroupThreads / kByteLanes == kTokens && kValueChunksHalf % kByteLanes == 0 &&
                kRopeChunksHalf <= kByteLanes);
  static_assert(kThreads / kKvCopyLanes == kTokens && kThreads / kQCopyLanes == kRows);
  static_assert(kKSteps % 2 == 0 && kValueHalf % wgmma::kSlabCols == 0 && kLk % 16 == 0);
  static_assert(kQBytes % wgmma::kSwizzleAtomBytes == 0 && kStageBytes % wgmma::kSwizzleAtomBytes == 0);
};

// Shared memory, laid out by hand from a 1024-byte aligned base (the swizzle's period).
template <int kLv, bool kFp8Cache = false>
struct WgmmaShared {
  using G = WgmmaGeometry<kLv, kFp8Cache>;
  static constexpr int kQ = 0;
  static constexpr int kKv = kQ + G::kQBytes;
  static constexpr int kExchange = kKv + G::kStages * G::kStageBytes;
  static constexpr int kKvBytes = kExchange + G::kExchangeBytes;  // the fp8 byte stages
  static constexpr int kTiles = kKvBytes + G::kByteStages * G::kByteStageBytes;
  struct Tiles {
    const void* q[G::kRowTiles];
    std::int64_t out_row[G::kRowTiles];
    int limit[G::kRowTiles];
  };
  static constexpr int kBytes = kTiles + static_cast<int>(sizeof(Tiles));
  // What the launch asks for: the base is rounded up to 1024 bytes inside it.
  static constexpr std::size_t kLaunchBytes = std::size_t{kBytes} + wgmma::kSwizzleAtomBytes;
  static_assert(kLaunchBytes + kReservedSharedPerBlock <= std::size_t{kPlatformSharedPerCu});
};

// Q and KV: the stored types of q and the cache; T: the MMA type the products take.
template <class Q, class KV, int kLv>
struct WgmmaRowGroupAttention {
  using T = mma_type_t<Q, KV>;
  static constexpr bool kFp8Cache = sizeof(KV) == 1;
  static_assert(std::is_same_v<Q, KV> || (kFp8Cache && std::is_same_v<Q, T>),
                "q and cache of one type, or 16-bit q of the MMA type against an fp8 cache");
  static_assert(!splits_q_v<Q, KV>);
  using G = WgmmaGeometry<kLv, kFp8Cache>;
  using L = WgmmaShared<kLv, kFp8Cache>;
  static constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  static constexpr float kLog2e = 1.4426950408889634f;

  // Thread t of warpgroup g: O columns g Lv/2 + acc_col(t, i) of rows acc_row(t, i); the softmax
  // state of its two rows acc_row(t, 0) and acc_row(t, 2) (log2 units).
  struct State {
    float o[G::kOAcc];
    float m_run[2];
    float l_run[2];
  };

  // The 1024-byte aligned base inside the dynamic shared memory.
  static __device__ char* base(void* dynamic_shared) {
    const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(dynamic_shared));
    const std::uint32_t aligned =
        (address + wgmma::kSwizzleAtomBytes - 1) & ~std::uint32_t{wgmma::kSwizzleAtomBytes - 1};
    return static_cast<char*>(dynamic_shared) + (aligned - address);
  }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Attends the row tiles to the kv tokens in slots[0 .. n_tokens). Every thread calls it.
  static __device__ State attend(char* sh, const AttentionParams& p, const RowTiles<G::kRowTiles>& rows,
                                 const std::int32_t* slots, std::int64_t n_tokens) {
    const int tid = static_cast<int>(threadIdx.x);
    const int g = tid / wgmma::kWarpgroupThreads;
    const int t = tid % wgmma::kWarpgroupThreads;
    auto& tiles = *reinterpret_cast<typename L::Tiles*>(sh + L::kTiles);
    __syncthreads();  // the previous row group's write() has read the tiles (the persistent loop)
    if (tid < G::kRowTiles) {
      tiles.q[tid] = rows.tile[tid].q;
      tiles.out_row[tid] = rows.tile[tid].out_row;
      tiles.limit[tid] = rows.tile[tid].limit;
    }
    const KV* cache = static_cast<const KV*>(p.kv);
    const int n_tiles = static_cast<int>((n_tokens + G::kTokens - 1) / G::kTokens);
    // The slot of this thread's copy row of a tile, -1 past the range (zeros are staged there).
    const int row = copy_row();
    const auto slot_of = [&](int tile) -> std::int32_t {
      const std::int64_t pos = std::int64_t{tile} * G::kTokens + row;
      return pos < n_tokens ? slots[pos] : -1;
    };

    stage_q(sh, rows, cache);
    std::int32_t next_slot;
    if constexpr (kFp8Cache) {
#pragma unroll
      for (int s = 0; s < G::kByteStages; ++s) {
        if (s < n_tiles) stage_kv_bytes(sh, s, slot_of(s), cache);
        commit_copies();  // group s: tile s (and 16-bit q with group 0)
      }
      next_slot = slot_of(G::kByteStages);
      if (n_tiles > 0) {
        wait_copies<G::kByteStages - 1>();  // this thread's copies of tile 0 (and q) have landed
        widen_kv(sh, 0, 0);
      }
      wgmma::shared_to_async();  // the widened codes (and q); the loop's first barrier publishes them
    } else {
      if (n_tiles > 0) stage_kv(sh, 0, slot_of(0), cache);
      commit_copies();  // group 0: q and tile 0
      if (n_tiles > 1) stage_kv(sh, 1, slot_of(1), cache);
      commit_copies();  // group 1: tile 1
      next_slot = slot_of(2);
    }

    const float scale = taken_softmax_scale(p.score_scale, p.precision) * kLog2e;
    const std::uint32_t q_address = shared_address(sh + L::kQ);
    float4* exchange = reinterpret_cast<float4*>(sh + L::kExchange);

    State st;
#pragma unroll
    for (int i = 0; i < G::kOAcc; ++i) st.o[i] = 0.0f;
    st.m_run[0] = st.m_run[1] = kMinusInf;
    st.l_run[0] = st.l_run[1] = 0.0f;
    __syncthreads();  // the row tiles are published
    const int limit = tiles.limit[t / 32];

    for (int tile = 0; tile < n_tiles; ++tile) {
      const int stage = tile % G::kStages;
      const std::uint32_t kv_address = shared_address(sh + L::kKv + stage * G::kStageBytes);
      if constexpr (kFp8Cache) {
        __syncthreads();  // every thread's widened codes of tile `tile`; its byte stage is free
        if (tile + G::kByteStages < n_tiles) stage_kv_bytes(sh, tile % G::kByteStages, next_slot, cache);
        commit_copies();  // one group per tile, empty past the end, so the wait count holds
        next_slot = slot_of(tile + G::kByteStages + 1);
      } else {
        wait_copies<1>();  // this thread's copies of tile `tile` (and q) have landed
        wgmma::shared_to_async();
        __syncthreads();  // ... everyone's
      }

      // 2. This warpgroup's half of S; the previous tile's P V completes on the same wait.
      float s[G::kSAcc];
      wgmma::fence();
#pragma unroll
      for (int k = 0; k < G::kHalfKSteps; ++k) {
        const int step = g * G::kHalfKSteps + k;
        const std::uint32_t within = (step % 4) * 32;
        const std::uint32_t slab = step / 4;
        wgmma::mma_ss_m64n32k16<T>(
            s, wgmma::k_major_descriptor(q_address + slab * wgmma::slab_bytes(G::kRows) + within),
            wgmma::k_major_descriptor(kv_address + slab * wgmma::slab_bytes(G::kTokens) + within),
            k == 0 ? 0 : 1);  // the first product starts the sum
      }
      wgmma::commit();
      if constexpr (kFp8Cache) {
        // While the scores run: this warpgroup's chunks of tile + 1 into the other code stage. Its
        // readers were this warpgroup's P V of tile - 1 (its value columns, done at the wait
        // below) and both warpgroups' scores of tile - 1 (done before that tile's exchange barrier).
        if (tile + 1 < n_tiles) {
          wgmma::wait<1>();
          wgmma::hold(st.o);
          wait_copies<G::kByteStages - 1>();  // this thread's copies of tile + 1 have landed
          widen_kv(sh, (tile + 1) % G::kByteStages, (tile + 1) % G::kStages);
          wgmma::shared_to_async();
        }
      }
      wgmma::wait<0>();
      wgmma::hold(s);
      wgmma::hold(st.o);
#pragma unroll
      for (int j = 0; j < G::kSAcc / 4; ++j) {
        exchange[(g * (G::kSAcc / 4) + j) * wgmma::kWarpgroupThreads + t] =
            make_float4(s[4 * j], s[4 * j + 1], s[4 * j + 2], s[4 * j + 3]);
      }
      __syncthreads();  // both halves of S stored; every product of tile - 1 is complete
      if constexpr (!kFp8Cache) {
        if (tile + 2 < n_tiles) stage_kv(sh, (tile + 2) % G::kStages, next_slot, cache);
        commit_copies();  // one group per tile, empty past the end, so the wait count holds
        next_slot = slot_of(tile + 3);
      }
#pragma unroll
      for (int j = 0; j < G::kSAcc / 4; ++j) {
        const float4 other = exchange[((1 - g) * (G::kSAcc / 4) + j) * wgmma::kWarpgroupThreads + t];
        s[4 * j] += other.x;
        s[4 * j + 1] += other.y;
        s[4 * j + 2] += other.z;
        s[4 * j + 3] += other.w;
      }

      // 3. Online softmax of this thread's 2 rows x 8 tokens.
      std::uint32_t a[G::kTokens / 16][4];
      float alpha[2];
      softmax(s, st, limit - tile * G::kTokens, scale, a, alpha);
      if (alpha[0] != 1.0f || alpha[1] != 1.0f) {
#pragma unroll
        for (int i = 0; i < G::kOAcc; ++i) st.o[i] *= alpha[i / 2 % 2];
      }

      // 4. O += P V on this warpgroup's value columns.
      wgmma::hold(st.o);
      wgmma::fence();
      const std::uint32_t v_address =
          kv_address + g * (G::kValueHalf / wgmma::kSlabCols) * wgmma::slab_bytes(G::kTokens);
#pragma unroll
      for (int kk = 0; kk < G::kTokens / 16; ++kk) {
        const std::uint64_t v = wgmma::mn_major_descriptor(v_address + kk * 16 * wgmma::kSwizzleRowBytes, G::kTokens);
        if constexpr (G::kValueHalf == 256) {
          wgmma::mma_rs_m64n256k16<T>(st.o, a[kk], v);
        } else {
          wgmma::mma_rs_m64n128k16<T>(st.o, a[kk], v);
        }
      }
      wgmma::commit();
    }
    wgmma::wait<0>();
    wgmma::hold(st.o);
    wait_copies<0>();  // with no tile at all, q's copies are still in flight
    return st;
  }

  // Writes each used row tile's LSE and normalised O (times value_scale) through out(out_row) ->
  // RowTileOut<Out>, as RowGroupAttention::write does. Every thread calls it.
  template <class Out, class OutFn>
  static __device__ void write(char* sh, const State& st, const AttentionParams& p, OutFn&& out) {
    const int tid = static_cast<int>(threadIdx.x);
    const int g = tid / wgmma::kWarpgroupThreads;
    const int t = tid % wgmma::kWarpgroupThreads;
    const auto& tiles = *reinterpret_cast<const typename L::Tiles*>(sh + L::kTiles);
    const int row_tile = t / 32;
    if (tiles.q[row_tile] == nullptr) return;
    const RowTileOut<Out> dst = out(tiles.out_row[row_tile]);
    float factor[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float l = st.l_run[h];
      factor[h] = l == 0.0f ? 0.0f : p.value_scale / l;
      if (g == 0 && t % 4 == 0) {
        const int head = wgmma::acc_row(t, 2 * h) % kHeadTile;
        // A NaN sum is kept: it poisons the row as the NaN input behind it should.
        dst.lse[head * dst.lse_head_stride] =
            l == 0.0f ? kMinusInf : computed_lse((st.m_run[h] + log2f(l)) * 0.6931471805599453f, p.precision);
      }
    }
#pragma unroll
    for (int i = 0; i < G::kOAcc; i += 2) {
      const int h = i / 2 % 2;
      const int head = wgmma::acc_row(t, i) % kHeadTile;
      const int col = g * G::kValueHalf + wgmma::acc_col(t, i);
      const float v0 = factor[h] == 0.0f ? 0.0f : st.o[i] * factor[h];
      const float v1 = factor[h] == 0.0f ? 0.0f : st.o[i + 1] * factor[h];
      Out* at = dst.o + head * dst.o_head_stride + col;
      if constexpr (std::is_same_v<Out, float>) {
        *reinterpret_cast<float2*>(at) = make_float2(v0, v1);  // col even, rows of even length
      } else {
        at[0] = from_float<Out>(v0);
        at[1] = from_float<Out>(v1);
      }
    }
  }

 private:
  static __device__ std::uint32_t shared_address(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  }

  // q's 64 rows into the swizzled q tile; rows of an unused row tile are zeros. 16-bit q through
  // asynchronous copies (complete with the first copy group); fp8 q widened through registers.
  static __device__ void stage_q(char* sh, const RowTiles<G::kRowTiles>& rows, const KV* cache) {
    const int tid = static_cast<int>(threadIdx.x);
    const int row = tid / G::kQCopyLanes;
    const Q* q = static_cast<const Q*>(rows.tile[row / kHeadTile].q);
    if constexpr (sizeof(Q) == 1) {
      constexpr int kChunks = G::kByteChunksPerRow / G::kQCopyLanes;
      static_assert(kChunks * G::kQCopyLanes == G::kByteChunksPerRow);
      Chunk16 bytes[kChunks];
#pragma unroll
      for (int k = 0; k < kChunks; ++k) {
        const int c = tid % G::kQCopyLanes + G::kQCopyLanes * k;
        bytes[k] = q != nullptr ? *reinterpret_cast<const Chunk16*>(q + (row % kHeadTile) * G::kLk + 16 * c) : Chunk16{};
      }
#pragma unroll
      for (int k = 0; k < kChunks; ++k) {
        const int c = tid % G::kQCopyLanes + G::kQCopyLanes * k;
        store_widened_pair(sh + L::kQ, G::kRows, row, c, bytes[k]);
      }
    } else {
      const void* src = q == nullptr ? static_cast<const void*>(cache) : q + (row % kHeadTile) * G::kLk;
#pragma unroll
      for (int c = tid % G::kQCopyLanes; c < G::kChunksPerRow; c += G::kQCopyLanes) {
        copy16_async(sh + L::kQ + wgmma::swizzled_chunk_offset(G::kRows, row, c), static_cast<const Q*>(src) + 8 * c,
                     q != nullptr);
      }
    }
  }

  // The row of a KV tile this thread copies (and, for an fp8 cache, widens).
  static __device__ int copy_row() {
    const int tid = static_cast<int>(threadIdx.x);
    return kFp8Cache ? tid % wgmma::kWarpgroupThreads / G::kByteLanes : tid / G::kKvCopyLanes;
  }

  // This thread's chunks of its row of KV tile `stage` from cache slot `slot` (zeros for -1).
  static __device__ void stage_kv(char* sh, int stage, std::int32_t slot, const KV* cache) {
    const int tid = static_cast<int>(threadIdx.x);
    const int row = copy_row();
    const KV* src = cache_row(cache, slot < 0 ? 0 : slot, G::kLk, false);
    char* tile = sh + L::kKv + stage * G::kStageBytes;
#pragma unroll
    for (int c = tid % G::kKvCopyLanes; c < G::kChunksPerRow; c += G::kKvCopyLanes) {
      copy16_async(tile + wgmma::swizzled_chunk_offset(G::kTokens, row, c), src + 8 * c, slot >= 0);
    }
  }

  // Calls f(c) for the 16-byte chunks c of its row (t / kByteLanes) an fp8 cache's tile gives this
  // thread to copy and to widen: of the value columns its warpgroup's P V reads, and of the rope.
  template <class F>
  static __device__ void for_each_own_byte_chunk(F&& f) {
    const int tid = static_cast<int>(threadIdx.x);
    const int g = tid / wgmma::kWarpgroupThreads;
    const int lane = tid % G::kByteLanes;
#pragma unroll
    for (int k = 0; k < G::kValueChunksHalf / G::kByteLanes; ++k) f(g * G::kValueChunksHalf + lane + G::kByteLanes * k);
    if (lane < G::kRopeChunksHalf) f(2 * G::kValueChunksHalf + g * G::kRopeChunksHalf + lane);
  }

  // An fp8 cache: this thread's chunks of its row of KV tile `byte_stage` of the byte ring from
  // cache slot `slot` (zeros for -1), as stored.
  static __device__ void stage_kv_bytes(char* sh, int byte_stage, std::int32_t slot, const KV* cache) {
    const int row = copy_row();
    const KV* src = cache_row(cache, slot < 0 ? 0 : slot, G::kLk, false);
    char* tile = sh + L::kKvBytes + byte_stage * G::kByteStageBytes + row * G::kLk;
    for_each_own_byte_chunk([&](int c) { copy16_async(tile + 16 * c, src + 16 * c, slot >= 0); });
  }

  // The chunks stage_kv_bytes copied in this thread, of byte stage `byte_stage`, widened into the
  // swizzled code stage `stage`. A quarter warp's two rows take even and odd 16-byte bank groups.
  static __device__ void widen_kv(char* sh, int byte_stage, int stage) {
    const int row = copy_row();
    const char* bytes = sh + L::kKvBytes + byte_stage * G::kByteStageBytes + row * G::kLk;
    char* codes = sh + L::kKv + stage * G::kStageBytes;
    for_each_own_byte_chunk([&](int c) {
      store_widened_pair(codes, G::kTokens, row, c, *reinterpret_cast<const Chunk16*>(bytes + 16 * c));
    });
  }

  // Byte chunk c (16 fp8 codes) of `row`, widened to S codes, into code chunks 2c and 2c + 1 of
  // the swizzled tile of `rows` rows at `tile`.
  static __device__ void store_widened_pair(char* tile, int rows, int row, int c, const Chunk16& bytes) {
    Chunk16 codes[2];
    widen_chunk<T, KV>(bytes, codes);
    *reinterpret_cast<Chunk16*>(tile + wgmma::swizzled_chunk_offset(rows, row, 2 * c)) = codes[0];
    *reinterpret_cast<Chunk16*>(tile + wgmma::swizzled_chunk_offset(rows, row, 2 * c + 1)) = codes[1];
  }

  // The online softmax of this thread's rows over one tile (`visible` of its tokens are seen by
  // its row tile): scores scaled to log2 units, masked, the running max and sum updated, alpha =
  // exp2(m_old - m_new) per row, and P = exp2(s - m_new) in the MMA type packed into the A
  // registers of P V's k steps. A row that has seen nothing keeps m = -inf and takes exponents
  // against 0, so P = 0 and alpha = 0, as in RowGroupAttention::softmax.
  static __device__ void softmax(float (&s)[G::kSAcc], State& st, int visible, float scale,
                                 std::uint32_t (&a)[G::kTokens / 16][4], float (&alpha)[2]) {
    const int t = static_cast<int>(threadIdx.x) % wgmma::kWarpgroupThreads;
    float tile_max[2] = {kMinusInf, kMinusInf};
#pragma unroll
    for (int i = 0; i < G::kSAcc; ++i) {
      s[i] = wgmma::acc_col(t, i) < visible ? s[i] * scale : kMinusInf;
      tile_max[i / 2 % 2] = fmaxf(tile_max[i / 2 % 2], s[i]);
    }
    float base[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xFFFFFFFFu, tile_max[h], 1));
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xFFFFFFFFu, tile_max[h], 2));
      const float m_new = fmaxf(st.m_run[h], tile_max[h]);
      base[h] = m_new == kMinusInf ? 0.0f : m_new;
      alpha[h] = exp2f(st.m_run[h] - base[h]);
      st.m_run[h] = m_new;
    }
    float sum[2] = {0.0f, 0.0f};
    std::uint16_t code[G::kSAcc];
#pragma unroll
    for (int i = 0; i < G::kSAcc; ++i) {
      const float e = exp2f(s[i] - base[i / 2 % 2]);
      sum[i / 2 % 2] += e;
      code[i] = from_float<T>(e).bits;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sum[h] += __shfl_xor_sync(0xFFFFFFFFu, sum[h], 1);
      sum[h] += __shfl_xor_sync(0xFFFFFFFFu, sum[h], 2);
      st.l_run[h] = st.l_run[h] * alpha[h] + sum[h];
    }
#pragma unroll
    for (int kk = 0; kk < G::kTokens / 16; ++kk) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int i = wgmma::p_register_source(kk, j);
        a[kk][j] = std::uint32_t{code[i]} | std::uint32_t{code[i + 1]} << 16;
      }
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
};

}  // namespace mlacheck::kernels
