#include "device/kernels/tests/mfma_lane_model.hpp"

#include <cmath>
#include <cstddef>
#include <limits>

#include "core/dtype_convert.hpp"

namespace mlacheck::test {
namespace {

float decode(MfmaType type, std::uint16_t code) {
  return type == MfmaType::bf16 ? to_float(bf16_t{code}) : to_float(f16_t{code});
}
std::uint16_t encode(MfmaType type, float value) {
  return type == MfmaType::bf16 ? from_float<bf16_t>(value).bits : from_float<f16_t>(value).bits;
}

// A shared-memory image of codes (16-bit, or fp8 bytes), every element outside the operand the
// type's NaN code, which a read past the image returns too.
template <class Code>
struct CodeImage {
  std::vector<Code> codes;
  Code nan;
  std::size_t origin = 0;  // where the current k tile starts (the kernels' pointer p)
};

class Accesses {
 public:
  template <class Code>
  Code load(const CodeImage<Code>& image, int offset) {
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(image.origin) + offset;
    if (at < 0 || at >= static_cast<std::ptrdiff_t>(image.codes.size())) {
      ++out_of_image;
      return image.nan;
    }
    return image.codes[static_cast<std::size_t>(at)];
  }
  int out_of_image = 0;
};

// load_a / load_bt / load_b (and their fp8 forms) for every lane: value j from the tile's element
// (row, col).
template <class Code, std::size_t kPerLane>
std::array<std::array<Code, kPerLane>, kWave> load_fragments(const ValuePlacement& placement,
                                                             const CodeImage<Code>& image, int stride,
                                                             Accesses& accesses) {
  std::array<std::array<Code, kPerLane>, kWave> registers{};
  for (int lane = 0; lane < kWave; ++lane) {
    for (int j = 0; j < static_cast<int>(kPerLane); ++j) {
      registers[lane][j] = accesses.load(image, placement.row(lane, j) * stride + placement.col(lane, j));
    }
  }
  return registers;
}

// store() for every lane through `placement` into a NaN-filled 16-row image of out_stride floats,
// then the 16 x 16 tile read back, counting stray stores; out_of_image_accesses carries the loads'.
FragmentPathResult store_accumulators(const ValuePlacement& placement, const AccRegisters& acc, int out_stride,
                                      int load_out_of_image) {
  FragmentPathResult result;
  result.out_of_image_accesses = load_out_of_image;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(static_cast<std::size_t>(kTile * out_stride), nan);
  std::vector<int> stores(out.size(), 0);
  for (int lane = 0; lane < kWave; ++lane) {
    for (int i = 0; i < kValues; ++i) {
      const int at = placement.row(lane, i) * out_stride + placement.col(lane, i);
      if (at < 0 || at >= static_cast<int>(out.size())) {
        ++result.out_of_image_accesses;
        continue;
      }
      out[static_cast<std::size_t>(at)] = acc[lane][i];
      ++stores[static_cast<std::size_t>(at)];
    }
  }
  result.c.assign(static_cast<std::size_t>(kTile * kTile), nan);
  for (int row = 0; row < kTile; ++row) {
    for (int col = 0; col < out_stride; ++col) {
      const auto at = static_cast<std::size_t>(row * out_stride + col);
      if (col < kTile) {
        result.c[static_cast<std::size_t>(row * kTile + col)] = out[at];
        if (stores[at] > 1) result.stray_stores += stores[at] - 1;
      } else {
        result.stray_stores += stores[at];
      }
    }
  }
  return result;
}

std::vector<double> product(const std::vector<float>& a, const std::vector<float>& b, int k_total) {
  std::vector<double> c(static_cast<std::size_t>(kTile * kTile), 0.0);
  for (int m = 0; m < kTile; ++m) {
    for (int n = 0; n < kTile; ++n) {
      double sum = 0.0;
      for (int k = 0; k < k_total; ++k) sum += double{a[m * k_total + k]} * double{b[k * kTile + n]};
      c[static_cast<std::size_t>(m * kTile + n)] = sum;
    }
  }
  return c;
}

}  // namespace

// From AMD's matrix instruction calculator (gfx9 MFMA, M = N = K = 16, one block, 16-bit inputs,
// fp32 outputs; the same in AMD's CDNA3/CDNA4 matrix-core guide): A[i][k] is element k % 4 of
// lane i + 16 (k / 4), B[k][n] element k % 4 of lane n + 16 (k / 4), C and D[i][n] element i % 4
// of lane n + 16 (i / 4). Products of 16-bit values are exact in fp32; the order of the sum does
// not matter for the small integers the tests use.
AccRegisters mfma_16x16x16(MfmaType type, const OperandRegisters& a, const OperandRegisters& b, const AccRegisters& c) {
  AccRegisters d{};
  for (int i = 0; i < kTile; ++i) {
    for (int n = 0; n < kTile; ++n) {
      const int out_lane = n + kTile * (i / 4);
      float sum = c[out_lane][i % 4];
      for (int k = 0; k < kTile; ++k) {
        sum += decode(type, a[i + kTile * (k / 4)][k % 4]) * decode(type, b[n + kTile * (k / 4)][k % 4]);
      }
      d[out_lane][i % 4] = sum;
    }
  }
  return d;
}

FragmentPathResult run_fragment_path(const FragmentLayout& layout, const TileProblem& p) {
  const int k_total = kTile * p.k_tiles;
  const std::uint16_t nan_code = 0x7FFF;  // a NaN in both bf16 and f16
  const bool b_rows = p.b_storage == BStorage::rows;

  CodeImage<std::uint16_t> a_image{
      std::vector<std::uint16_t>(static_cast<std::size_t>(kTile * p.operand_stride), nan_code), nan_code};
  for (int m = 0; m < kTile; ++m) {
    for (int k = 0; k < k_total; ++k) {
      a_image.codes[static_cast<std::size_t>(m * p.operand_stride + k)] = encode(p.type, p.a[m * k_total + k]);
    }
  }
  const int b_image_rows = b_rows ? k_total : kTile;
  CodeImage<std::uint16_t> b_image{
      std::vector<std::uint16_t>(static_cast<std::size_t>(b_image_rows * p.operand_stride), nan_code), nan_code};
  for (int k = 0; k < k_total; ++k) {
    for (int n = 0; n < kTile; ++n) {
      const int at = b_rows ? k * p.operand_stride + n : n * p.operand_stride + k;
      b_image.codes[static_cast<std::size_t>(at)] = encode(p.type, p.b[k * kTile + n]);
    }
  }

  Accesses accesses;
  AccRegisters acc{};  // Acc starts at zero
  for (int t = 0; t < p.k_tiles; ++t) {
    // The kernels' pointers to the k tile: A and B^T advance along a row, B rows down the image.
    a_image.origin = static_cast<std::size_t>(kTile * t);
    b_image.origin = static_cast<std::size_t>(b_rows ? kTile * t * p.operand_stride : kTile * t);
    const auto a = load_fragments<std::uint16_t, kValues>(layout.a, a_image, p.operand_stride, accesses);
    const auto b =
        load_fragments<std::uint16_t, kValues>(b_rows ? layout.b : layout.bt, b_image, p.operand_stride, accesses);
    acc = mfma_16x16x16(p.type, a, b, acc);
  }
  return store_accumulators(layout.acc, acc, p.out_stride, accesses.out_of_image);
}

std::vector<double> plain_product(const TileProblem& p) { return product(p.a, p.b, kTile * p.k_tiles); }

// From the fp8 MFMA's documented layout (composable_kernel's mfma_f32_16x16x32f8f8: 4 input blocks
// of 16 lanes reducing over k, 8 bytes of k a block; the accumulator as mfma_16x16x16's): A[i][k]
// is byte k % 8 of lane i + 16 (k / 8), B[k][n] byte k % 8 of lane n + 16 (k / 8), C and D[i][n]
// element i % 4 of lane n + 16 (i / 4). The bytes are decoded as e4m3 fnuz. Products of e4m3
// values are exact in fp32, and so is every sum the tests form from small integers, so neither the
// order nor the width of the hardware's sum matters here.
AccRegisters mfma_16x16x32_fp8(const Fp8OperandRegisters& a, const Fp8OperandRegisters& b, const AccRegisters& c) {
  AccRegisters d{};
  for (int i = 0; i < kTile; ++i) {
    for (int n = 0; n < kTile; ++n) {
      const int out_lane = n + kTile * (i / 4);
      float sum = c[out_lane][i % 4];
      for (int k = 0; k < kFp8K; ++k) {
        sum += to_float(fp8_e4m3fnuz_t{a[i + kTile * (k / 8)][k % 8]}) *
               to_float(fp8_e4m3fnuz_t{b[n + kTile * (k / 8)][k % 8]});
      }
      d[out_lane][i % 4] = sum;
    }
  }
  return d;
}

FragmentPathResult run_fp8_fragment_path(const Fp8FragmentLayout& layout, const Fp8TileProblem& p) {
  const int k_total = kFp8K * p.k_steps;
  const std::uint8_t nan_code = 0x80;  // fnuz's only NaN

  // A as rows of m, B^T as rows of n: both 16 rows of K bytes.
  CodeImage<std::uint8_t> a_image{
      std::vector<std::uint8_t>(static_cast<std::size_t>(kTile * p.operand_stride), nan_code), nan_code};
  CodeImage<std::uint8_t> b_image = a_image;
  for (int r = 0; r < kTile; ++r) {
    for (int k = 0; k < k_total; ++k) {
      const auto at = static_cast<std::size_t>(r * p.operand_stride + k);
      a_image.codes[at] = from_float<fp8_e4m3fnuz_t>(p.a[r * k_total + k]).bits;
      b_image.codes[at] = from_float<fp8_e4m3fnuz_t>(p.b[k * kTile + r]).bits;
    }
  }

  Accesses accesses;
  AccRegisters acc{};  // Acc starts at zero
  for (int t = 0; t < p.k_steps; ++t) {
    // scores_fp8's pointers to the k step: both advance 32 bytes along their rows.
    a_image.origin = b_image.origin = static_cast<std::size_t>(kFp8K * t);
    const auto a = load_fragments<std::uint8_t, kFp8Bytes>(layout.a, a_image, p.operand_stride, accesses);
    const auto b = load_fragments<std::uint8_t, kFp8Bytes>(layout.bt, b_image, p.operand_stride, accesses);
    acc = mfma_16x16x32_fp8(a, b, acc);
  }
  return store_accumulators(layout.acc, acc, p.out_stride, accesses.out_of_image);
}

std::vector<double> plain_product(const Fp8TileProblem& p) { return product(p.a, p.b, kFp8K * p.k_steps); }

int mismatches(const FragmentPathResult& result, const std::vector<double>& expected) {
  int count = result.stray_stores + result.out_of_image_accesses;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    // NaN (no lane stored here, or a lane read padding) compares unequal.
    if (!(double{result.c[e]} == expected[e])) ++count;
  }
  return count;
}

}  // namespace mlacheck::test
