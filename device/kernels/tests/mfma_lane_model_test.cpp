// The kernels' MFMA fragment path (mma_tile_mfma.hpp through mfma_fragment_layout.hpp) for all 64
// lanes on the host model of the instruction, against a plain matrix product. Nothing here has run
// on an AMD GPU; this is how the CDNA-only lane arithmetic is checked without one. The mutant
// tests break one index function at a time and demand that the comparison fails, so a model that
// accepted anything would be caught.
#include "device/kernels/tests/mfma_lane_model.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype_convert.hpp"

namespace mlacheck::test {
namespace {

// Small integers in [-3, 4]: exact in bf16 and f16, and every sum of products exact in fp32.
std::vector<float> small_integers(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  std::uint64_t state = seed;
  for (float& v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<float>(static_cast<int>(state >> 61) - 3);
  }
  return values;
}

TileProblem make_problem(MfmaType type, BStorage b_storage, int k_tiles, int operand_stride, int out_stride) {
  TileProblem p;
  p.type = type;
  p.b_storage = b_storage;
  p.k_tiles = k_tiles;
  p.operand_stride = operand_stride;
  p.out_stride = out_stride;
  const auto k_total = static_cast<std::size_t>(kTile * k_tiles);
  p.a = small_integers(kTile * k_total, 0x5EED0001u + static_cast<std::uint64_t>(k_tiles));
  p.b = small_integers(k_total * kTile, 0x5EED0002u + static_cast<std::uint64_t>(k_tiles));
  return p;
}

std::string name(const TileProblem& p) {
  return std::string(p.type == MfmaType::bf16 ? "bf16" : "f16") +
         (p.b_storage == BStorage::rows ? " load_b" : " load_bt") + " K=" + std::to_string(kTile * p.k_tiles) +
         " stride " + std::to_string(p.operand_stride) + " out stride " + std::to_string(p.out_stride);
}

// Every case the kernels use: both operand types, B stored either way, one or two k tiles (the
// second accumulates onto the first), strides with and without padding.
std::vector<TileProblem> kernel_like_problems() {
  std::vector<TileProblem> problems;
  for (const MfmaType type : {MfmaType::bf16, MfmaType::f16}) {
    for (const BStorage storage : {BStorage::transposed, BStorage::rows}) {
      for (const int k_tiles : {1, 2}) {
        const int k_total = kTile * k_tiles;  // A is 16 x K, so its rows set the tightest stride
        problems.push_back(make_problem(type, storage, k_tiles, k_total, 16));
        problems.push_back(make_problem(type, storage, k_tiles, k_total + 8, 20));
      }
    }
  }
  return problems;
}

TEST(MfmaLaneModel, InstructionModelIsAMatrixProduct) {
  // The model alone, registers filled straight from AMD's layout: D = A B + C.
  const TileProblem p = make_problem(MfmaType::f16, BStorage::transposed, 1, kTile, kTile);
  OperandRegisters a{}, b{};
  AccRegisters c{};
  for (int lane = 0; lane < kWave; ++lane) {
    for (int j = 0; j < kValues; ++j) {
      const int k = 4 * (lane / kTile) + j;
      a[lane][j] = from_float<f16_t>(p.a[(lane % kTile) * kTile + k]).bits;
      b[lane][j] = from_float<f16_t>(p.b[k * kTile + lane % kTile]).bits;
      c[lane][j] = 1000.0f;
    }
  }
  const AccRegisters d = mfma_16x16x16(MfmaType::f16, a, b, c);
  const std::vector<double> expected = plain_product(p);
  for (int lane = 0; lane < kWave; ++lane) {
    for (int j = 0; j < kValues; ++j) {
      const int row = 4 * (lane / kTile) + j, col = lane % kTile;
      EXPECT_EQ(d[lane][j], expected[row * kTile + col] + 1000.0) << "lane " << lane << " value " << j;
    }
  }
}

TEST(MfmaLaneModel, KernelFragmentPathComputesTheProduct) {
  for (const TileProblem& p : kernel_like_problems()) {
    const FragmentPathResult result = run_fragment_path(kKernelLayout, p);
    EXPECT_EQ(mismatches(result, plain_product(p)), 0) << name(p);
    EXPECT_EQ(result.stray_stores, 0) << name(p);
    EXPECT_EQ(result.out_of_image_accesses, 0) << name(p);
  }
}

// The device loaders address value 0 and step from there (an 8-byte load along a row for A and
// B^T, down a column for B); the model places every value through the functions. The two agree
// while the steps hold, which the layout header also asserts at compile time.
TEST(MfmaLaneModel, LoaderStepsMatchThePlacementFunctions) { EXPECT_TRUE(mfma::loader_steps_hold()); }

// Mistakes one could make in each function: NVIDIA's lane order, a reversed register, B read the
// other way round, the accumulator transposed or a row off.
int nvidia_like_a_row(int lane, int /*j*/) { return lane / 4; }
int nvidia_like_a_col(int lane, int j) { return 4 * (lane % 4) + j; }
int reversed_bt_col(int lane, int j) { return mfma::bt_col(lane, kValues - 1 - j); }
int transposed_acc_row(int lane, int i) { return mfma::acc_col(lane, i); }
int transposed_acc_col(int lane, int i) { return mfma::acc_row(lane, i); }
int shifted_acc_row(int lane, int i) { return (mfma::acc_row(lane, i) + 1) % kTile; }

struct Mutant {
  const char* what;
  FragmentLayout layout;
};

std::vector<Mutant> mutants() {
  const FragmentLayout k = kKernelLayout;
  return {
      {"A in NVIDIA's lane order", {{&nvidia_like_a_row, &nvidia_like_a_col}, k.bt, k.b, k.acc}},
      {"B^T with the four values reversed", {k.a, {k.bt.row, &reversed_bt_col}, k.b, k.acc}},
      {"B stored as rows read as if transposed", {k.a, k.bt, k.bt, k.acc}},
      {"the accumulator transposed", {k.a, k.bt, k.b, {&transposed_acc_row, &transposed_acc_col}}},
      {"the accumulator a row off", {k.a, k.bt, k.b, {&shifted_acc_row, k.acc.col}}},
  };
}

bool same(const ValuePlacement& x, const ValuePlacement& y) { return x.row == y.row && x.col == y.col; }

TEST(MfmaLaneModel, EveryBrokenLaneMappingFailsTheComparison) {
  for (const Mutant& mutant : mutants()) {
    int caught = 0, relevant = 0;
    for (const TileProblem& p : kernel_like_problems()) {
      // A mutant of load_b only matters where B is stored as rows, of load_bt where it is not.
      const bool touches_b_rows = !same(mutant.layout.b, kKernelLayout.b);
      const bool touches_b_t = !same(mutant.layout.bt, kKernelLayout.bt);
      if (touches_b_rows && p.b_storage != BStorage::rows) continue;
      if (touches_b_t && p.b_storage != BStorage::transposed) continue;
      ++relevant;
      if (mismatches(run_fragment_path(mutant.layout, p), plain_product(p)) > 0) ++caught;
    }
    EXPECT_GT(relevant, 0) << mutant.what;
    EXPECT_EQ(caught, relevant) << mutant.what << ": the lane model accepted a broken layout";
  }
}

}  // namespace
}  // namespace mlacheck::test
