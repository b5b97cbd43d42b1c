// The kernels' MFMA fragment path (mma_tile_mfma.hpp through mfma_fragment_layout.hpp) for all 64
// lanes on the host model of the instruction, against a plain matrix product: the 16-bit tiles and
// CDNA3's fp8 (e4m3 fnuz) tiles. Nothing here has run
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

// D of one instruction whose C was 1000 everywhere: lane l's value i at (4 (l / 16) + i, l % 16),
// AMD's accumulator layout, for both instruction models.
void expect_product_plus_1000(const AccRegisters& d, const std::vector<double>& expected) {
  for (int lane = 0; lane < kWave; ++lane) {
    for (int i = 0; i < kValues; ++i) {
      const int row = 4 * (lane / kTile) + i, col = lane % kTile;
      EXPECT_EQ(d[lane][i], expected[row * kTile + col] + 1000.0) << "lane " << lane << " value " << i;
    }
  }
}

// A fragment path that computed A B exactly, stored every element once and stayed in its images.
void expect_exact_product(const FragmentPathResult& result, const std::vector<double>& expected,
                          const std::string& what) {
  EXPECT_EQ(mismatches(result, expected), 0) << what;
  EXPECT_EQ(result.stray_stores, 0) << what;
  EXPECT_EQ(result.out_of_image_accesses, 0) << what;
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
  expect_product_plus_1000(mfma_16x16x16(MfmaType::f16, a, b, c), plain_product(p));
}

TEST(MfmaLaneModel, KernelFragmentPathComputesTheProduct) {
  for (const TileProblem& p : kernel_like_problems()) {
    expect_exact_product(run_fragment_path(kKernelLayout, p), plain_product(p), name(p));
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

// fp8 (v_mfma_f32_16x16x32_fp8_fp8, e4m3 fnuz bytes; B stored as rows of n, as scores_fp8 reads
// the keys).

Fp8TileProblem make_fp8_problem(int k_steps, int operand_stride, int out_stride) {
  Fp8TileProblem p;
  p.k_steps = k_steps;
  p.operand_stride = operand_stride;
  p.out_stride = out_stride;
  const auto k_total = static_cast<std::size_t>(kFp8K * k_steps);
  p.a = small_integers(kTile * k_total, 0xF8000001u + static_cast<std::uint64_t>(k_steps));
  p.b = small_integers(k_total * kTile, 0xF8000002u + static_cast<std::uint64_t>(k_steps));
  return p;
}

std::string name(const Fp8TileProblem& p) {
  return "fp8 K=" + std::to_string(kFp8K * p.k_steps) + " stride " + std::to_string(p.operand_stride) + " out stride " +
         std::to_string(p.out_stride);
}

// One, two and three k steps (each after the first accumulates onto the last), byte strides
// without padding and with the kernels' 16-byte row pad.
std::vector<Fp8TileProblem> kernel_like_fp8_problems() {
  std::vector<Fp8TileProblem> problems;
  for (const int k_steps : {1, 2, 3}) {
    const int k_total = kFp8K * k_steps;
    problems.push_back(make_fp8_problem(k_steps, k_total, 16));
    problems.push_back(make_fp8_problem(k_steps, k_total + 16, 20));
  }
  return problems;
}

TEST(MfmaLaneModel, SmallIntegersAreExactFnuzCodes) {
  // What makes the fp8 comparisons exact: every test value survives e4m3 fnuz.
  for (const float v : small_integers(4096, 0xF8000003u)) {
    EXPECT_EQ(to_float(from_float<fp8_e4m3fnuz_t>(v)), v) << v;
  }
}

TEST(MfmaLaneModel, Fp8InstructionModelIsAMatrixProduct) {
  // The model alone, registers filled straight from AMD's layout: D = A B + C.
  const Fp8TileProblem p = make_fp8_problem(1, kFp8K, kTile);
  Fp8OperandRegisters a{}, b{};
  AccRegisters c{};
  for (int lane = 0; lane < kWave; ++lane) {
    for (int j = 0; j < kFp8Bytes; ++j) {
      const int k = 8 * (lane / kTile) + j;
      a[lane][j] = from_float<fp8_e4m3fnuz_t>(p.a[(lane % kTile) * kFp8K + k]).bits;
      b[lane][j] = from_float<fp8_e4m3fnuz_t>(p.b[k * kTile + lane % kTile]).bits;
    }
    for (int i = 0; i < kValues; ++i) c[lane][i] = 1000.0f;
  }
  expect_product_plus_1000(mfma_16x16x32_fp8(a, b, c), plain_product(p));
}

TEST(MfmaLaneModel, KernelFp8FragmentPathComputesTheProduct) {
  for (const Fp8TileProblem& p : kernel_like_fp8_problems()) {
    expect_exact_product(run_fp8_fragment_path(kKernelFp8Layout, p), plain_product(p), name(p));
  }
}

// load_a_fp8 and load_bt_fp8 read byte 0 and the 7 after it in one 8-byte load; the model places
// every byte through the functions.
TEST(MfmaLaneModel, Fp8LoaderStepsMatchThePlacementFunctions) { EXPECT_TRUE(mfma::fp8_loader_steps_hold()); }

// Mistakes one could make in the fp8 functions: the 16-bit instructions' 4 k a lane block, NVIDIA's
// lane order, the bytes of the 64-bit operand reversed or its 4-byte halves swapped, the k blocks
// in reverse lane order, the accumulator transposed.
int k4_fp8_a_col(int lane, int j) { return 4 * (lane / kTile) + j; }
int nvidia_like_fp8_a_row(int lane, int /*j*/) { return lane / 4; }
int nvidia_like_fp8_a_col(int lane, int j) { return 8 * (lane % 4) + j; }
int reversed_fp8_bt_col(int lane, int j) { return mfma::fp8_bt_col(lane, kFp8Bytes - 1 - j); }
int halves_swapped_fp8_bt_col(int lane, int j) { return mfma::fp8_bt_col(lane, (j + 4) % kFp8Bytes); }
int blocks_reversed_fp8_bt_col(int lane, int j) { return 8 * (3 - lane / kTile) + j; }

struct Fp8Mutant {
  const char* what;
  Fp8FragmentLayout layout;
};

std::vector<Fp8Mutant> fp8_mutants() {
  const Fp8FragmentLayout k = kKernelFp8Layout;
  return {
      {"A with 4 k a lane block", {{k.a.row, &k4_fp8_a_col}, k.bt, k.acc}},
      {"A in NVIDIA's lane order", {{&nvidia_like_fp8_a_row, &nvidia_like_fp8_a_col}, k.bt, k.acc}},
      {"B^T with the 8 bytes reversed", {k.a, {k.bt.row, &reversed_fp8_bt_col}, k.acc}},
      {"B^T with the 4-byte halves swapped", {k.a, {k.bt.row, &halves_swapped_fp8_bt_col}, k.acc}},
      {"B^T with the k blocks in reverse lane order", {k.a, {k.bt.row, &blocks_reversed_fp8_bt_col}, k.acc}},
      {"the accumulator transposed", {k.a, k.bt, {&transposed_acc_row, &transposed_acc_col}}},
  };
}

TEST(MfmaLaneModel, EveryBrokenFp8LaneMappingFailsTheComparison) {
  const std::vector<Fp8TileProblem> problems = kernel_like_fp8_problems();
  for (const Fp8Mutant& mutant : fp8_mutants()) {
    std::size_t caught = 0;
    for (const Fp8TileProblem& p : problems) {
      if (mismatches(run_fp8_fragment_path(mutant.layout, p), plain_product(p)) > 0) ++caught;
    }
    EXPECT_EQ(caught, problems.size()) << mutant.what << ": the lane model accepted a broken fp8 layout";
  }
}

}  // namespace
}  // namespace mlacheck::test
