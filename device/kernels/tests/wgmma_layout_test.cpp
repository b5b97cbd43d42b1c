// The Hopper path's layout arithmetic (wgmma_layout.hpp) against the PTX ISA's definitions, and the
// rule that sends a launch to it (wgmma_dispatch.hpp). Host only: the kernel computes its shared
// addresses, descriptors and register roles with these same functions.
#include "device/kernels/wgmma_layout.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "device/kernels/wgmma_dispatch.hpp"

namespace mlacheck::kernels::wgmma {
namespace {

// The 128-byte swizzle as the hardware applies it to an address: bits 4-6 XOR bits 7-9.
int hardware_swizzle(int address) { return address ^ (((address >> 7) & 7) << 4); }

TEST(WgmmaLayout, SwizzledOffsetsAreTheHardwareSwizzleOfTheCanonicalSlabs) {
  for (const auto& [rows, cols] : {std::pair{32, 576}, std::pair{64, 576}, std::pair{32, 320}, std::pair{64, 320}}) {
    std::set<int> seen;
    for (int row = 0; row < rows; ++row) {
      for (int col = 0; col < cols; ++col) {
        // Canonical (unswizzled) layout: 64-column slabs, 128-byte rows in each.
        const int linear = col / kSlabCols * rows * kSwizzleRowBytes + row * kSwizzleRowBytes + col % kSlabCols * 2;
        const int offset = swizzled_offset(rows, row, col);
        ASSERT_EQ(offset, hardware_swizzle(linear)) << "rows " << rows << " row " << row << " col " << col;
        ASSERT_TRUE(seen.insert(offset).second);
        ASSERT_LT(offset, swizzled_tile_bytes(rows, cols));
      }
    }
    EXPECT_EQ(seen.size(), std::size_t(rows) * std::size_t(cols));
    EXPECT_EQ(slab_bytes(rows) % kSwizzleAtomBytes, 0);  // every slab keeps the swizzle's alignment
  }
}

TEST(WgmmaLayout, DescriptorFieldsSitWhereThePtxIsaPutsThem) {
  // Start address, leading and stride byte offsets in 16-byte units at bits 0, 16 and 32; the
  // 128-byte swizzle is layout type 1 at bits 62-63; base offset (bits 49-51) 0.
  const std::uint64_t k = k_major_descriptor(0x12340);
  EXPECT_EQ(k & 0x3FFF, 0x1234u);
  EXPECT_EQ(k >> 16 & 0x3FFF, 1u);
  EXPECT_EQ(k >> 32 & 0x3FFF, 1024u / 16);
  EXPECT_EQ(k >> 49 & 0x7, 0u);
  EXPECT_EQ(k >> 62, 1u);
  const std::uint64_t mn = mn_major_descriptor(0x20800, 32);
  EXPECT_EQ(mn & 0x3FFF, 0x2080u);
  EXPECT_EQ(mn >> 16 & 0x3FFF, 32u * 128 / 16);  // one slab of 32 rows to the next 64 columns
  EXPECT_EQ(mn >> 32 & 0x3FFF, 1024u / 16);      // 8 rows of k to the next 8
  EXPECT_EQ(mn >> 62, 1u);
  // Shared addresses above 2^18 do not exist; the field keeps 14 bits and nothing spills over.
  EXPECT_EQ(k_major_descriptor(0x3FFF0) & 0xFFFF, 0x3FFFu);
}

TEST(WgmmaLayout, AccumulatorFragmentCoversTheTileOnce) {
  for (int n : {32, 128, 256}) {
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < kWarpgroupThreads; ++t) {
      for (int i = 0; i < n / 2; ++i) {
        const int row = acc_row(t, i);
        const int col = acc_col(t, i);
        ASSERT_TRUE(row >= 0 && row < 64 && col >= 0 && col < n);
        ASSERT_TRUE(seen.insert({row, col}).second) << "n " << n << " t " << t << " i " << i;
      }
    }
    EXPECT_EQ(seen.size(), std::size_t(64) * std::size_t(n));
  }
  // The ISA's figure of the m64nNk16 D fragment: warp w holds rows 16 w ..; lane l rows l / 4 and
  // l / 4 + 8, columns 2 (l % 4) and the next, every 8 columns.
  EXPECT_EQ(std::pair(acc_row(0, 0), acc_col(0, 0)), std::pair(0, 0));
  EXPECT_EQ(std::pair(acc_row(0, 1), acc_col(0, 1)), std::pair(0, 1));
  EXPECT_EQ(std::pair(acc_row(0, 2), acc_col(0, 2)), std::pair(8, 0));
  EXPECT_EQ(std::pair(acc_row(0, 4), acc_col(0, 4)), std::pair(0, 8));
  EXPECT_EQ(std::pair(acc_row(5, 0), acc_col(5, 0)), std::pair(1, 2));
  EXPECT_EQ(std::pair(acc_row(37, 3), acc_col(37, 3)), std::pair(25, 3));
}

TEST(WgmmaLayout, ScoresBecomeTheARegistersOfPvInPlace) {
  // A fragment of m64k16 (ISA figure): register j of lane l holds row l / 4 (+8 for odd j),
  // columns 2 (l % 4) (+8 for j >= 2) and the next.
  std::set<std::pair<int, int>> covered;
  for (int t = 0; t < kWarpgroupThreads; ++t) {
    for (int j = 0; j < 4; ++j) {
      ASSERT_TRUE(covered.insert({a_row(t, j), a_col(t, j)}).second);
      ASSERT_EQ(a_col(t, j) % 2, 0);
      for (int kk = 0; kk < 2; ++kk) {
        // The accumulator values p_register_source names are the pair this register needs.
        const int i = p_register_source(kk, j);
        EXPECT_EQ(acc_row(t, i), a_row(t, j)) << "t " << t << " kk " << kk << " j " << j;
        EXPECT_EQ(acc_col(t, i), 16 * kk + a_col(t, j));
        EXPECT_EQ(acc_row(t, i + 1), a_row(t, j));
        EXPECT_EQ(acc_col(t, i + 1), 16 * kk + a_col(t, j) + 1);
      }
    }
  }
  EXPECT_EQ(covered.size(), std::size_t(64 * 8));  // 64 rows x 8 pairs of 16 columns
}

WgmmaCandidate deepseek() {
  WgmmaCandidate c;
  c.q_dtype = DType::bf16;
  c.kv_dtype = DType::bf16;
  c.lv = 512;
  c.rope = 64;
  c.value_tile = 512;
  c.rope_tile = 64;
  c.row_tiles = 4;
  c.q_vector = true;
  c.kv_vector = true;
  return c;
}

TEST(WgmmaDispatch, TakesTheModelShapesOnTheCleanKernelOnly) {
  EXPECT_TRUE(wgmma_kernel_fits(deepseek()));
  WgmmaCandidate mistral = deepseek();
  mistral.lv = mistral.value_tile = 256;
  EXPECT_TRUE(wgmma_kernel_fits(mistral));
  WgmmaCandidate f16 = deepseek();
  f16.q_dtype = f16.kv_dtype = DType::f16;
  EXPECT_TRUE(wgmma_kernel_fits(f16));
  WgmmaCandidate two_tiles = deepseek();
  two_tiles.row_tiles = 2;
  EXPECT_TRUE(wgmma_kernel_fits(two_tiles));
  // fp8 caches at Lv 512, against fp8 q of their own variant or bf16 q.
  for (DType fp8 : {DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    for (DType q : {fp8, DType::bf16}) {
      WgmmaCandidate c = deepseek();
      c.q_dtype = q;
      c.kv_dtype = fp8;
      EXPECT_TRUE(wgmma_kernel_fits(c)) << to_string(q) << " q, " << to_string(fp8) << " cache";
      EXPECT_FALSE(persistent_wgmma_fits(c)) << "the persistent kernel takes Lv 256 only";
      c.row_tiles = 2;
      EXPECT_TRUE(wgmma_kernel_fits(c));
    }
  }

  std::vector<std::pair<const char*, WgmmaCandidate>> refused;
  const auto with = [&](const char* what, auto change) {
    WgmmaCandidate c = deepseek();
    change(c);
    refused.emplace_back(what, c);
  };
  with("mixed 16-bit dtypes", [](WgmmaCandidate& c) { c.q_dtype = DType::f16; });
  with("fp8 cache at Lv 256", [](WgmmaCandidate& c) {
    c.kv_dtype = DType::fp8_e4m3fn;
    c.lv = c.value_tile = 256;
  });
  with("fp8 q and cache at Lv 256", [](WgmmaCandidate& c) {
    c.q_dtype = c.kv_dtype = DType::fp8_e4m3fnuz;
    c.lv = c.value_tile = 256;
  });
  with("f16 q, fp8 cache", [](WgmmaCandidate& c) {
    c.q_dtype = DType::f16;
    c.kv_dtype = DType::fp8_e4m3fn;
  });
  with("fp8 q of the other variant", [](WgmmaCandidate& c) {
    c.q_dtype = DType::fp8_e4m3fn;
    c.kv_dtype = DType::fp8_e4m3fnuz;
  });
  with("fp8 q, bf16 cache", [](WgmmaCandidate& c) { c.q_dtype = DType::fp8_e4m3fn; });
  with("fp8 cache, one row tile", [](WgmmaCandidate& c) {
    c.kv_dtype = DType::fp8_e4m3fn;
    c.row_tiles = 1;
  });
  with("fp8 cache, tile-width-from-lk", [](WgmmaCandidate& c) {
    c.kv_dtype = DType::fp8_e4m3fn;
    c.value_tile = 1024;
    c.rope_tile = 0;
  });
  with("Lv 448", [](WgmmaCandidate& c) { c.lv = c.value_tile = 448; });
  with("rope 32", [](WgmmaCandidate& c) { c.rope = c.rope_tile = 32; });
  with("tile-width-from-lk", [](WgmmaCandidate& c) {
    c.value_tile = 1024;
    c.rope_tile = 0;
  });
  with("one row tile", [](WgmmaCandidate& c) { c.row_tiles = 1; });
  with("a precision fault", [](WgmmaCandidate& c) { c.precision = 1; });
  with("cache-offset-32bit", [](WgmmaCandidate& c) { c.cache_offset_32bit = true; });
  with("unaligned q", [](WgmmaCandidate& c) { c.q_vector = false; });
  with("unaligned cache", [](WgmmaCandidate& c) { c.kv_vector = false; });
  for (const auto& [what, c] : refused) {
    EXPECT_FALSE(wgmma_kernel_fits(c)) << what;
    EXPECT_FALSE(persistent_wgmma_fits(c)) << what;
  }
  // The persistent kernel: Lv 256 only.
  EXPECT_FALSE(persistent_wgmma_fits(deepseek()));
  EXPECT_TRUE(persistent_wgmma_fits(mistral));
}

}  // namespace
}  // namespace mlacheck::kernels::wgmma
