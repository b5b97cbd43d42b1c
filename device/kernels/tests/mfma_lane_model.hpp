#pragma once
// A host model of one wave64 running the kernels' MFMA tile path (mma_tile_mfma.hpp) for all 64
// lanes: each lane's fragment loads from a shared-memory image, v_mfma_f32_16x16x16bf16_1k or
// v_mfma_f32_16x16x16f16 (or, for fp8 e4m3 fnuz bytes, CDNA3's v_mfma_f32_16x16x32_fp8_fp8), and
// each lane's accumulator store. Two halves, kept apart on purpose:
//  - the instruction (mfma_16x16x16, mfma_16x16x32_fp8): what the matrix core does with the
//    registers of 64 lanes, written from AMD's documented layout, not from the project's layout
//    functions;
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

// fp8 e4m3 fnuz tiles (CDNA3): 8 operand bytes per lane, M = N = 16, K = 32; the accumulator as
// the 16-bit instructions'.
inline constexpr int kFp8Bytes = kernels::mma::mfma::kFp8BytesPerLane;
inline constexpr int kFp8K = kernels::mma::mfma::kFp8K;
using Fp8OperandRegisters = std::array<std::array<std::uint8_t, kFp8Bytes>, kWave>;

// D = A B + C of one v_mfma_f32_16x16x32_fp8_fp8, on the registers of the whole wave.
AccRegisters mfma_16x16x32_fp8(const Fp8OperandRegisters& a, const Fp8OperandRegisters& b, const AccRegisters& c);

// The lane index arithmetic of the fp8 fragment path: load_a_fp8, load_bt_fp8 and the store.
struct Fp8FragmentLayout {
  ValuePlacement a;    // load_a_fp8: byte j of a lane at (row, col) of A
  ValuePlacement bt;   // load_bt_fp8: byte j of a lane at (row, col) of B stored as rows of n
  ValuePlacement acc;  // store
};
inline constexpr Fp8FragmentLayout kKernelFp8Layout{
    {&mfma::fp8_a_row, &mfma::fp8_a_col}, {&mfma::fp8_bt_row, &mfma::fp8_bt_col}, {&mfma::acc_row, &mfma::acc_col}};

// One 16 x 16 output tile, C = A B with K = 32 * k_steps, B stored transposed (the keys of q k^T):
// one mma_fp8 per 32-byte k step onto the same accumulator, as scores_fp8 does. Strides are in
// bytes (multiples of 16, >= K).
struct Fp8TileProblem {
  int k_steps = 1;
  int operand_stride = 0;
  int out_stride = 16;
  std::vector<float> a;  // 16 x K, row-major, values exact in e4m3 fnuz
  std::vector<float> b;  // K x 16, row-major, values exact in e4m3 fnuz
};

// Writes A and B^T as fnuz codes into byte images (padding the fnuz NaN, 0x80), loads every lane's
// 8 bytes through `layout`, runs the modelled instruction per k step and stores every lane's
// accumulator through `layout`.
FragmentPathResult run_fp8_fragment_path(const Fp8FragmentLayout& layout, const Fp8TileProblem& problem);

// C = A B in double.
std::vector<double> plain_product(const Fp8TileProblem& problem);

}  // namespace mlacheck::test
