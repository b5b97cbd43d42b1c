#pragma once
// The geometry of a decode attention block (row_group_attention.hpp): which rows it holds, how its
// KV stream is staged, how its warps share the two matrix products, and its shared memory. The
// platform choices are the only numbers here that differ between NVIDIA and CDNA; everything else
// follows from them and from the MMA fragment group width (mma::kLanes).
//
// A block attends a row group: up to kRowTiles row tiles of 16 padded heads of one query token each
// (all tokens of a request x 16 heads for q_len > 1, or 32 to 64 heads of one token), so each KV
// tile is staged once for all of them. KV arrives in tiles of kStageTokens tokens, kStages deep.
#include <cstddef>
#include <cstdint>

#include "device/kernels/lds_chunk.hpp"
#include "device/kernels/mma_tile.hpp"
#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {

inline constexpr int kAttentionThreads = 256;

#if defined(MLACHECK_GPU_CUDA)
// Hopper: 228 KB of shared memory per SM. A block of one row tile takes two 32-token stages and
// fits twice (113 KB, 128 registers a thread), so one block's barrier chain and softmax hide behind
// the other's copies and matrix work; split q and P (mixed dtypes) take four stages in one block
// per SM. Two row tiles (three stages) and four (64 rows of q, 75 KB, two stages) fit once. An fp8
// cache's stages hold its bytes (19 KB a tile) beside one tile of widened codes, so two row tiles
// keep four tiles in flight and four row tiles three.
inline constexpr int kStageTokens = 32;
inline constexpr int kPlatformMaxRowTiles = 4;
inline constexpr int kPlatformSharedPerCu = 228 * 1024;
inline constexpr int kReservedSharedPerBlock = 1024;  // the runtime's own, beside the kernel's
constexpr int blocks_per_cu(int row_tiles, bool mixed) { return row_tiles == 1 && !mixed ? 2 : 1; }
constexpr int stage_count(int row_tiles, bool mixed, bool fp8_cache) {
  if (fp8_cache) return row_tiles >= 4 ? 3 : (row_tiles == 2 ? 4 : 2);
  return row_tiles >= 4 ? 2 : (row_tiles == 2 ? 3 : (mixed ? 4 : 2));
}
#else
// CDNA: 64 KB of LDS per workgroup holds one row tile and two 16-token stages; the split q and P
// of mixed dtypes (twice the q tile) leave room for one stage.
inline constexpr int kStageTokens = 16;
inline constexpr int kPlatformMaxRowTiles = 1;
inline constexpr int kPlatformSharedPerCu = 64 * 1024;
inline constexpr int kReservedSharedPerBlock = 0;
constexpr int blocks_per_cu(int /*row_tiles*/, bool /*mixed*/) { return 1; }
constexpr int stage_count(int /*row_tiles*/, bool mixed, bool /*fp8_cache*/) { return mixed ? 1 : 2; }
#endif

// Codes per staged latent row at most: the value tile, the rope tile, and 8 codes that shift each
// row by 16 bytes against the last, so the 8 row addresses of a matrix load hit different banks.
inline constexpr int kRowPad = 8;
inline constexpr int kMaxRowCodes = kMaxValueTile + kMaxRopeTile + kRowPad;
// Bytes per staged fp8 row at most: values and rope each in whole 32-byte steps of the fp8 matrix
// products, and 16 bytes that shift each row's banks as kRowPad does.
inline constexpr int kByteRowPad = 16;
inline constexpr int kMaxRowBytes = kMaxValueTile + kMaxRopeTile + kByteRowPad;

template <int kRowTiles, bool kMixed, bool kFp8Cache = false>
struct AttentionGeometry {
  static_assert(kRowTiles == 1 || kRowTiles == 2 || kRowTiles == 4);
  static_assert(!(kMixed && kFp8Cache), "mixed dtypes are two 16-bit types");
  static constexpr int kRows = kHeadTile * kRowTiles;
  static constexpr int kWarps = kAttentionThreads / mma::kLanes;
  // KV tiles in flight. A 16-bit cache's stages hold the MMA codes themselves; an fp8 cache's hold
  // its bytes, widened each tile into the one tile of codes the products read (kCodeTiles).
  static constexpr int kStages = stage_count(kRowTiles, kMixed, kFp8Cache);
  static constexpr int kCodeTiles = kFp8Cache ? 1 : kStages;
  static constexpr int kByteStages = kFp8Cache ? kStages : 0;
  static constexpr int kBlocksPerCu = blocks_per_cu(kRowTiles, kMixed);
  // Mixed q and KV dtypes: q and P are each held as a high and a low part in the MMA type.
  static constexpr int kPlanes = kMixed ? 2 : 1;

  // S = q k^T of one KV tile: the warps form kScoreBlocks blocks of kScoreRowTiles x
  // kScoreColTiles 16 x 16 tiles times kScoreKGroups groups, group g taking every kScoreKGroups-th
  // 16-wide step of Lk from step g; the groups' partial sums meet in shared memory. Two by two
  // tiles load four fragments for eight products, so the matrix loads keep up with the MMAs.
  static constexpr int kScoreColTiles = kStageTokens / 16;
  static constexpr int kScoreRowTiles = kRowTiles < 2 ? kRowTiles : 2;
  static constexpr int kScoreBlocks = kRowTiles / kScoreRowTiles;
  static constexpr int kScoreKGroups = kWarps / kScoreBlocks;
  static_assert(kScoreKGroups >= 1 && kWarps % kScoreBlocks == 0);
  static constexpr int kScoreStride = kStageTokens + 4;  // floats per score row
  static constexpr int kPStride = kStageTokens + kRowPad;  // codes per P row

  // O += P V: warp w owns value column tiles w, w + kWarps, ... (those below Lv / 16) of every row.
  static constexpr int kValueColsPerWarp = kMaxValueTile / 16 / kWarps;
  static_assert(kValueColsPerWarp * kWarps * 16 == kMaxValueTile);

  // Softmax: kThreadsPerRow consecutive threads per row, kColsPerThread columns each.
  static constexpr int kThreadsPerRow = kAttentionThreads / kRows;
  static constexpr int kColsPerThread = kStageTokens / kThreadsPerRow;
  static_assert(kThreadsPerRow * kRows == kAttentionThreads && kColsPerThread >= 1 && kThreadsPerRow <= 16);
};

// One row tile of a row group, as the caller describes it.
struct RowTile {
  const void* q = nullptr;   // 16 q rows (padded heads), Lk apart; nullptr: an unused slot
  std::int64_t out_row = 0;  // where the caller's output functor puts the tile's 16 rows
  int limit = 0;             // kv tokens of the range this tile's rows see (from its start)
};

template <int kRowTiles>
struct RowTiles {
  RowTile tile[kRowTiles];
};

// The byte stages of an fp8 cache's KV tiles (none for a 16-bit cache).
template <int kByteStages>
struct KvByteStages {
  Chunk16 tile[kByteStages][kStageTokens * kMaxRowBytes / 16];
};
template <>
struct KvByteStages<0> {};

// Shared memory of a row group's attention, reused from one row group to the next. fp8 q for the
// fp8 score products is staged as bytes in q[0]. The tiles the matrix loads and the 8- and 16-byte
// accesses read stay 16-byte aligned (RowGroupAttention asserts it).
template <int kRowTiles, bool kMixed, bool kFp8Cache = false>
struct AttentionShared {
  using G = AttentionGeometry<kRowTiles, kMixed, kFp8Cache>;
  Chunk16 q[G::kPlanes][G::kRows * kMaxRowCodes / 8];
  Chunk16 kv[G::kCodeTiles][kStageTokens * kMaxRowCodes / 8];
  float scores[G::kScoreKGroups][G::kRows][G::kScoreStride];
  Chunk16 p[G::kPlanes][G::kRows * G::kPStride / 8];
  float row_score_scale[G::kRows];  // softmax scale x log2(e), over the row's q scale when mixed
  float row_alpha[G::kRows];        // this tile's rescale of the row's accumulated output
  int rescaled_tile[kRowTiles];     // the last tile that changed a row max of the row tile
  float row_l[G::kRows];
  float row_m[G::kRows];            // log2 units
  std::uint32_t row_q_max[G::kRows];  // mixed: bits of the row's largest |q|
  std::int32_t slot_ring[G::kStages][kStageTokens];
  std::int64_t tile_out_row[kRowTiles];
  int tile_limit[kRowTiles];
  const void* tile_q[kRowTiles];
  // Last: empty for a 16-bit cache, where a member of 1 byte in the middle would misalign the
  // 8-byte score stores after it.
  KvByteStages<G::kByteStages> kv_bytes;
};

// Whether the blocks_per_cu blocks of an instance fit one CU's shared memory together.
template <int kRowTiles, bool kMixed, bool kFp8Cache = false>
inline constexpr bool kSharedFitsTheCu =
    AttentionGeometry<kRowTiles, kMixed, kFp8Cache>::kBlocksPerCu *
        (sizeof(AttentionShared<kRowTiles, kMixed, kFp8Cache>) + kReservedSharedPerBlock) <=
    std::size_t{kPlatformSharedPerCu};

}  // namespace mlacheck::kernels
