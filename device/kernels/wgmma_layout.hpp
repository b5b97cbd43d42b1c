#pragma once
// The data layouts of the Hopper warpgroup matrix products (wgmma, sm_90a) as plain arithmetic, so
// the host tests hold them against the PTX ISA's definitions (wgmma_layout_test.cpp) and the kernel
// (wgmma_row_group_attention.hpp) uses the same functions.
//
// Shared-memory operands in the 128-byte swizzle: a matrix of `rows` rows of 16-bit elements is
// stored as slabs of 64 columns (128 bytes a row), slab after slab; in a slab, row r sits at
// r * 128 and its 16-byte chunk c at chunk position c ^ (r % 8) (the hardware XORs address bits
// 4-6 with bits 7-9, so every slab starts 1024-byte aligned). The same bytes serve as a K-major
// operand (q and the keys for S = q k^T: k along the 64 columns) and as an MN-major one (the
// values for P V: n along the columns, k along the rows).
//
// Register fragments of one warpgroup (4 warps, 128 threads; t = thread in the warpgroup):
//   accumulator of an m64nN product, value i (< N / 2): row acc_row(t, i), column acc_col(t, i);
//   A operand of an m64k16 product from registers, 32-bit register j (< 4): the pair of elements
//   (a_row(t, j), a_col(t, j) + {0, 1}).
// A product's fp32 accumulator therefore hands its columns 16 kk .. 16 kk + 15 to the A registers of
// k step kk without moving between threads (p_register_source).
#include <cstdint>

#include "core/dtype_convert.hpp"  // MLACHECK_HD: host and device, without GPU headers

namespace mlacheck::kernels::wgmma {

inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kSlabCols = 64;  // 16-bit elements per swizzled row
inline constexpr int kSwizzleRowBytes = 128;
inline constexpr int kSwizzleAtomBytes = 1024;  // 8 rows: the swizzle pattern's period and alignment

// Bytes of a swizzled tile of `rows` rows and `cols` columns (cols a multiple of 64).
MLACHECK_HD constexpr int swizzled_tile_bytes(int rows, int cols) { return rows * cols * 2; }
// Bytes from one slab of such a tile to the next.
MLACHECK_HD constexpr int slab_bytes(int rows) { return rows * kSwizzleRowBytes; }

// Byte offset of 16-byte chunk `chunk` (of 8 elements) of row `row` in a swizzled tile of `rows` rows.
MLACHECK_HD constexpr int swizzled_chunk_offset(int rows, int row, int chunk) {
  return chunk / 8 * slab_bytes(rows) + row * kSwizzleRowBytes + ((chunk % 8) ^ (row % 8)) * 16;
}
// Byte offset of element `col` of row `row`.
MLACHECK_HD constexpr int swizzled_offset(int rows, int row, int col) {
  return swizzled_chunk_offset(rows, row, col / 8) + col % 8 * 2;
}

// A shared-memory matrix descriptor of the 128-byte swizzle (PTX ISA, "Matrix Descriptor Format"):
// start address, leading and stride byte offsets, each in 16-byte units in 14 bits; base offset 0
// (every slab 1024-byte aligned); layout type 1 in bits 62-63.
MLACHECK_HD constexpr std::uint64_t swizzle128_descriptor(std::uint32_t shared_address, std::uint32_t leading_bytes,
                                                          std::uint32_t stride_bytes) {
  return std::uint64_t{(shared_address >> 4) & 0x3FFFu} | std::uint64_t{(leading_bytes >> 4) & 0x3FFFu} << 16 |
         std::uint64_t{(stride_bytes >> 4) & 0x3FFFu} << 32 | std::uint64_t{1} << 62;
}
// K-major (k along a swizzled row): 8-row groups 1024 bytes apart; the leading offset is unused
// by the swizzled K-major layouts (1, as the ISA's examples set it). k step s of 16 starts 32 s
// bytes into its slab.
MLACHECK_HD constexpr std::uint64_t k_major_descriptor(std::uint32_t shared_address) {
  return swizzle128_descriptor(shared_address, 16, kSwizzleAtomBytes);
}
// MN-major (n along a swizzled row, k down the rows): 64-column groups one slab apart (leading),
// 8-row groups of k 1024 bytes apart (stride).
MLACHECK_HD constexpr std::uint64_t mn_major_descriptor(std::uint32_t shared_address, int rows) {
  return swizzle128_descriptor(shared_address, static_cast<std::uint32_t>(slab_bytes(rows)), kSwizzleAtomBytes);
}

// Accumulator fragment of an m64nN fp32 product.
MLACHECK_HD constexpr int acc_row(int t, int i) { return 16 * (t / 32) + t % 32 / 4 + 8 * (i / 2 % 2); }
MLACHECK_HD constexpr int acc_col(int t, int i) { return 8 * (i / 4) + 2 * (t % 4) + i % 2; }

// A fragment of an m64k16 product from registers.
MLACHECK_HD constexpr int a_row(int t, int j) { return 16 * (t / 32) + t % 32 / 4 + 8 * (j % 2); }
MLACHECK_HD constexpr int a_col(int t, int j) { return 8 * (j / 2) + 2 * (t % 4); }

// The accumulator value that becomes the low element of A register j at k step kk (the high
// element is the next value): columns 16 kk .. 16 kk + 15 of the accumulator, in the thread that
// holds them.
MLACHECK_HD constexpr int p_register_source(int kk, int j) { return 8 * kk + 4 * (j / 2) + 2 * (j % 2); }

}  // namespace mlacheck::kernels::wgmma
