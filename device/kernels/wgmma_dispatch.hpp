#pragma once
// Which launches the Hopper kernels take (split_kv_wgmma_kernel.hpp, persistent_wgmma_kernel.hpp).
// Plain C++, so the rules are host-tested (wgmma_layout_test.cpp); the launchers add the one fact
// only the device knows: whether the code it loaded was built for sm_90a.
#include <cstdint>

#include "core/dtype.hpp"

namespace mlacheck::kernels {

// What the rule looks at, from the launch's shape, tiles and faults.
struct WgmmaCandidate {
  DType q_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  int lv = 0;
  int rope = 0;
  int value_tile = 0;  // the dispatch's tiles: the Hopper kernel stages rows whole, unpadded
  int rope_tile = 0;
  int row_tiles = 0;            // of the launch's row groups
  std::uint32_t precision = 0;  // precision faults switched on
  bool cache_offset_32bit = false;
  bool q_vector = false;  // 16-byte rows, aligned bases
  bool kv_vector = false;
};

// The fewest row tiles a group must hold for the Hopper kernel: it computes 64 rows whatever the
// group holds, which pays where the portable kernel runs one block per SM (two and four row tiles).
inline constexpr int kWgmmaMinRowTiles = 2;

// The fp8 caches the Hopper kernel takes: e4m3 (fn or fnuz) at the value width of the models
// that run fp8 decode (DeepSeek-V3, Kimi-K2), against bf16 q or fp8 q of the cache's own type.
inline constexpr int kWgmmaFp8Lv = 512;

// The dtypes: q and cache of one 16-bit type, or an fp8 cache as above.
constexpr bool wgmma_dtypes_fit(const WgmmaCandidate& c) {
  const bool sixteen_bit = (c.q_dtype == DType::bf16 || c.q_dtype == DType::f16) && c.kv_dtype == c.q_dtype;
  const bool fp8_cache = (c.kv_dtype == DType::fp8_e4m3fn || c.kv_dtype == DType::fp8_e4m3fnuz) &&
                         (c.q_dtype == DType::bf16 || c.q_dtype == c.kv_dtype) && c.lv == kWgmmaFp8Lv;
  return sixteen_bit || fp8_cache;
}

// The dtypes above, the models' widths (Lv 512 or 256, rope 64) in tiles of their own width (so
// not under tile-width-from-lk), rows readable in 16-byte chunks, a row group of at least
// kWgmmaMinRowTiles, and the clean arithmetic: no precision fault, no 32-bit cache offsets. The
// faults of the block's range and rows (partial_block) apply on both kernels alike.
constexpr bool wgmma_kernel_fits(const WgmmaCandidate& c) {
  const bool model_width =
      (c.lv == 512 || c.lv == 256) && c.rope == 64 && c.value_tile == c.lv && c.rope_tile == c.rope;
  return wgmma_dtypes_fit(c) && model_width && c.row_tiles >= kWgmmaMinRowTiles && c.precision == 0 &&
         !c.cache_offset_32bit && c.q_vector && c.kv_vector;
}

// The persistent kernel takes the Hopper attention at Lv 256 only: at Lv 512 its work loop's
// registers on top of the attention's 254 spilled 456 bytes a thread, and the H100 ran two-row-tile
// groups 1.5 times slower than the portable kernel and four-row-tile ones no faster
// (CHANGELOG.md, note 9); at Lv 256 it is 1.3 times faster.
inline constexpr int kPersistentWgmmaMaxLv = 256;

// fp8 caches (Lv 512 only) therefore stay on the portable persistent kernel.
constexpr bool persistent_wgmma_fits(const WgmmaCandidate& c) {
  return wgmma_kernel_fits(c) && c.lv <= kPersistentWgmmaMaxLv;
}

}  // namespace mlacheck::kernels
