#pragma once
// Where each lane of a 64-wide wavefront finds its operand values and keeps its accumulator
// values for one v_mfma_f32_16x16x16bf16_1k or v_mfma_f32_16x16x16f16 (mma_tile_mfma.hpp).
// Plain C++ (MLACHECK_HD, no GPU header): the kernels' fragment code calls these functions, and
// the host lane model of device/kernels/tests runs the very same functions for all 64 lanes
// against AMD's documented register layout, so the CDNA path is checked on machines without one.
//
// The instruction's layout (AMD matrix instruction calculator, gfx9 MFMA with M = N = K = 16 and
// one block; CDNA3 keeps it), lane l, register element j < 4:
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

// Offsets in 16-bit elements from the tile's origin; `stride` is the distance between rows.
// A (m, k) = p[m * stride + k]: value j of lane l.
MLACHECK_HD constexpr int a_offset(int lane, int j, int stride) {
  return (lane % kTile) * stride + 4 * (lane / kTile) + j;
}
// B (k, n) = p[n * stride + k], B stored transposed (q k^T): value j of lane l.
MLACHECK_HD constexpr int bt_offset(int lane, int j, int stride) {
  return (lane % kTile) * stride + 4 * (lane / kTile) + j;
}
// B (k, n) = p[k * stride + n], rows of B contiguous (P V): value j of lane l.
MLACHECK_HD constexpr int b_offset(int lane, int j, int stride) {
  return (4 * (lane / kTile) + j) * stride + lane % kTile;
}
// Tile row and column of accumulator value i of lane l.
MLACHECK_HD constexpr int acc_row(int lane, int i) { return 4 * (lane / kTile) + i; }
MLACHECK_HD constexpr int acc_col(int lane, int /*i*/) { return lane % kTile; }

// load_a and load_bt read a lane's four values with one 8-byte load at value 0. That is right
// only while values 0..3 sit next to each other, for every lane and every legal stride.
MLACHECK_HD constexpr bool row_operands_adjacent() {
  for (int stride = 8; stride <= 64; stride += 8) {
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int j = 0; j < kValuesPerLane; ++j) {
        if (a_offset(lane, j, stride) != a_offset(lane, 0, stride) + j) return false;
        if (bt_offset(lane, j, stride) != bt_offset(lane, 0, stride) + j) return false;
      }
    }
  }
  return true;
}
static_assert(row_operands_adjacent(), "load_a/load_bt read four adjacent 16-bit values at once");

}  // namespace mlacheck::kernels::mma::mfma
