#pragma once
// A host model of one wave64 running the kernels' MFMA tile path (mma_tile_mfma.hpp) for all 64
// lanes: each lane's fragment loads from a shared-memory image, v_mfma_f32_16x16x16bf16_1k or
// v_mfma_f32_16x16x16f16, and each lane's accumulator store. Two halves, kept apart on purpose:
//  - the instruction (mfma_16x16x16): what the matrix core does with the registers of 64 lanes,
//    written from AMD's documentation, not from the project's layout functions;
//  - the fragment path (FragmentLayout): where each lane loads from and stores to, the kernels'
//    own functions of mfma_fragment_layout.hpp (kKernelLayout) or a deliberately broken copy.
#include <array>
#include <cstdint>
#include <vector>

#include "device/kernels/mfma_fragment_layout.hpp"

namespace mlacheck::test {

inline constexpr int kWave = kernels::mma::mfma::kLanes;
inline constexpr int kTile = kernels::mma::mfma::kTile;
inline constexpr int kValues = kernels::mma::mfma::kValuesPerLane;

enum class MfmaType { bf16, f16 };  // v_mfma_f32_16x16x16bf16_1k, v_mfma_f32_16x16x16f16

// Four 16-bit operand values per lane; four fp32 accumulator values per lane.
using OperandRegisters = std::array<std::array<std::uint16_t, kValues>, kWave>;
using AccRegisters = std::array<std::array<float, kValues>, kWave>;

// D = A B + C of one instruction, on the registers of the whole wave.
AccRegisters mfma_16x16x16(MfmaType type, const OperandRegisters& a, const OperandRegisters& b, const AccRegisters& c);

// Where value j of a lane sits in a stored tile: (row(lane, j), col(lane, j)).
struct ValuePlacement {
  int (*row)(int lane, int j);
  int (*col)(int lane, int j);
};
// The lane index arithmetic of the fragment path, as mfma_fragment_layout.hpp names it.
struct FragmentLayout {
  ValuePlacement a;    // load_a
  ValuePlacement bt;   // load_bt
  ValuePlacement b;    // load_b
  ValuePlacement acc;  // store
};
// The functions the kernels call.
namespace mfma = kernels::mma::mfma;
inline constexpr FragmentLayout kKernelLayout{{&mfma::a_row, &mfma::a_col},
                                              {&mfma::bt_row, &mfma::bt_col},
                                              {&mfma::b_row, &mfma::b_col},
                                              {&mfma::acc_row, &mfma::acc_col}};

// How B sits in shared memory: as the kernels' q k^T reads it (load_bt, rows of n) or as their
// P V reads it (load_b, rows of k).
enum class BStorage { transposed, rows };

// One 16 x 16 output tile, C = A B with K = 16 * k_tiles: one mma per 16-wide k tile, as the
// kernels accumulate. Strides are the shared-memory row strides in elements (multiples of 8).
struct TileProblem {
  MfmaType type = MfmaType::bf16;
  BStorage b_storage = BStorage::transposed;
  int k_tiles = 1;
  int operand_stride = 0;  // >= K for A and stored B^T, >= 16 for B stored as rows
  int out_stride = 16;
  std::vector<float> a;  // 16 x K, row-major, values exact in the 16-bit type
  std::vector<float> b;  // K x 16, row-major, values exact in the 16-bit type
};

// What the fragment path left in the fp32 output image.
struct FragmentPathResult {
  std::vector<float> c;           // 16 x 16; NaN where no lane stored
  int stray_stores = 0;           // stores outside the tile, or twice to one element
  int out_of_image_accesses = 0;  // loads or stores past the shared-memory images
};

// Writes A and B into shared-memory images (padding NaN), loads every lane's fragments through
// `layout`, runs the modelled instruction per k tile and stores every lane's accumulator through
// `layout`.
FragmentPathResult run_fragment_path(const FragmentLayout& layout, const TileProblem& problem);

// C = A B in double.
std::vector<double> plain_product(const TileProblem& problem);

// Elements of the stored tile that differ from `expected`, plus stray stores and out-of-image
// accesses: zero means the fragment path computed A B.
int mismatches(const FragmentPathResult& result, const std::vector<double>& expected);

}  // namespace mlacheck::test
