#pragma once
// Where each lane of a 64-wide wavefront finds its operand values and keeps its accumulator
// values for one v_mfma_f32_16x16x16bf16_1k or v_mfma_f32_16x16x16f16, and its operand bytes for
// one v_mfma_f32_16x16x32_fp8_fp8 on CDNA3 (mma_tile_mfma.hpp).
// Plain C++ (MLACHECK_HD, no GPU header): the kernels' fragment code calls these functions, and
// the host lane model of device/kernels/tests runs the very same functions for all 64 lanes
// against AMD's documented register layout, so the CDNA path is checked on machines without one.
//
// The instruction's layout (AMD's matrix instruction calculator, gfx9 MFMA with M = N = K = 16
// and one block, for CDNA2; AMD's matrix-core guide for CDNA3 and CDNA4 shows the same for
// 16x16x16 f16), lane l, register element j < 4:
//   A[i][k]  in lane i + 16 (k / 4), element k % 4
//   B[k][n]  in lane n + 16 (k / 4), element k % 4
//   C/D[i][n] in lane n + 16 (i / 4), element i % 4
// so lane l holds A (m l % 16, k 4 (l / 16) + j), B (k 4 (l / 16) + j, n l % 16) and accumulator
// value j at (m 4 (l / 16) + j, n l % 16).
#include "core/dtype_convert.hpp"  // MLACHECK_HD

namespace mlacheck::kernels::mma::mfma {

inline constexpr int kLanes = 64;
inline constexpr int kTile = 16;          // M = N = K
inline constexpr int kValuesPerLane = 4;  // operand values (16-bit) and accumulator values (fp32)

// Row and column, in the tile as stored in shared memory (element (row, col) at
// p[row * stride + col]), of value j of lane l.
// A (m, k), stored as rows of m.
MLACHECK_HD constexpr int a_row(int lane, int /*j*/) { return lane % kTile; }
MLACHECK_HD constexpr int a_col(int lane, int j) { return 4 * (lane / kTile) + j; }
// B (k, n) stored transposed, as rows of n (q k^T).
MLACHECK_HD constexpr int bt_row(int lane, int /*j*/) { return lane % kTile; }
MLACHECK_HD constexpr int bt_col(int lane, int j) { return 4 * (lane / kTile) + j; }
// B (k, n) stored as rows of k (P V).
MLACHECK_HD constexpr int b_row(int lane, int j) { return 4 * (lane / kTile) + j; }
MLACHECK_HD constexpr int b_col(int lane, int /*j*/) { return lane % kTile; }
// The accumulator: value i of lane l is C (acc_row, acc_col).
MLACHECK_HD constexpr int acc_row(int lane, int i) { return 4 * (lane / kTile) + i; }
MLACHECK_HD constexpr int acc_col(int lane, int /*i*/) { return lane % kTile; }

// The loaders address value 0 and step from there: load_a and load_bt read a lane's four values
// with one 8-byte load (so they must sit side by side in one row), load_b walks down one column.
MLACHECK_HD constexpr bool loader_steps_hold() {
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int j = 0; j < kValuesPerLane; ++j) {
      if (a_row(lane, j) != a_row(lane, 0) || a_col(lane, j) != a_col(lane, 0) + j) return false;
      if (bt_row(lane, j) != bt_row(lane, 0) || bt_col(lane, j) != bt_col(lane, 0) + j) return false;
      if (b_row(lane, j) != b_row(lane, 0) + j || b_col(lane, j) != b_col(lane, 0)) return false;
    }
  }
  return true;
}
static_assert(loader_steps_hold(), "mma_tile_mfma.hpp's loaders step through values as these functions place them");

// fp8 (e4m3 fnuz) tiles on CDNA3, v_mfma_f32_16x16x32_fp8_fp8: M = N = 16, K = 32, each operand a
// 64-bit register pair of 8 bytes per lane. The instruction's layout (composable_kernel's
// mfma_f32_16x16x32f8f8: 16 lanes a block, 4 input blocks reducing over k, 8 k per block), lane l,
// byte j < 8:
//   A[i][k]  in lane i + 16 (k / 8), byte k % 8
//   B[k][n]  in lane n + 16 (k / 8), byte k % 8
//   C/D      as the 16-bit instructions (acc_row, acc_col above)
// so lane l holds A (m l % 16, k 8 (l / 16) + j) and B (k 8 (l / 16) + j, n l % 16). k and the
// column counts below are in bytes.
inline constexpr int kFp8K = 32;
inline constexpr int kFp8BytesPerLane = 8;
// A (m, k), stored as rows of m.
MLACHECK_HD constexpr int fp8_a_row(int lane, int /*j*/) { return lane % kTile; }
MLACHECK_HD constexpr int fp8_a_col(int lane, int j) { return kFp8BytesPerLane * (lane / kTile) + j; }
// B (k, n) stored transposed, as rows of n (q k^T).
MLACHECK_HD constexpr int fp8_bt_row(int lane, int /*j*/) { return lane % kTile; }
MLACHECK_HD constexpr int fp8_bt_col(int lane, int j) { return kFp8BytesPerLane * (lane / kTile) + j; }

// load_a_fp8 and load_bt_fp8 read a lane's 8 bytes with one 8-byte load from byte 0, so they must
// sit side by side in one row (8-byte aligned too: rows are 16-byte aligned, byte 0 at a
// multiple of 8).
MLACHECK_HD constexpr bool fp8_loader_steps_hold() {
  for (int lane = 0; lane < kLanes; ++lane) {
    if (fp8_a_col(lane, 0) % kFp8BytesPerLane != 0 || fp8_bt_col(lane, 0) % kFp8BytesPerLane != 0) return false;
    for (int j = 0; j < kFp8BytesPerLane; ++j) {
      if (fp8_a_row(lane, j) != fp8_a_row(lane, 0) || fp8_a_col(lane, j) != fp8_a_col(lane, 0) + j) return false;
      if (fp8_bt_row(lane, j) != fp8_bt_row(lane, 0) || fp8_bt_col(lane, j) != fp8_bt_col(lane, 0) + j) return false;
    }
  }
  return true;
}
static_assert(fp8_loader_steps_hold(),
              "mma_tile_mfma.hpp's fp8 loaders read a lane's bytes as one aligned 8-byte load");

}  // namespace mlacheck::kernels::mma::mfma
