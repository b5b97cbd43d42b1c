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

// A shared-memory image of 16-bit codes, every element outside the operand a NaN code.
struct CodeImage {
  std::vector<std::uint16_t> codes;
  std::size_t origin = 0;  // where the current k tile starts (the kernels' pointer p)
};

class Accesses {
 public:
  std::uint16_t load(const CodeImage& image, int offset) {
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(image.origin) + offset;
    if (at < 0 || at >= static_cast<std::ptrdiff_t>(image.codes.size())) {
      ++out_of_image;
      return 0x7FFF;  // a NaN in both bf16 and f16
    }
    return image.codes[static_cast<std::size_t>(at)];
  }
  int out_of_image = 0;
};

// load_a / load_bt / load_b for every lane: value j from the tile's element (row, col).
OperandRegisters load_fragments(const ValuePlacement& placement, const CodeImage& image, int stride,
                                Accesses& accesses) {
  OperandRegisters registers{};
  for (int lane = 0; lane < kWave; ++lane) {
    for (int j = 0; j < kValues; ++j) {
      registers[lane][j] = accesses.load(image, placement.row(lane, j) * stride + placement.col(lane, j));
    }
  }
  return registers;
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
  const std::uint16_t nan_code = 0x7FFF;
  const bool b_rows = p.b_storage == BStorage::rows;

  CodeImage a_image{std::vector<std::uint16_t>(static_cast<std::size_t>(kTile * p.operand_stride), nan_code)};
  for (int m = 0; m < kTile; ++m) {
    for (int k = 0; k < k_total; ++k) {
      a_image.codes[static_cast<std::size_t>(m * p.operand_stride + k)] = encode(p.type, p.a[m * k_total + k]);
    }
  }
  const int b_image_rows = b_rows ? k_total : kTile;
  CodeImage b_image{std::vector<std::uint16_t>(static_cast<std::size_t>(b_image_rows * p.operand_stride), nan_code)};
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
    const OperandRegisters a = load_fragments(layout.a, a_image, p.operand_stride, accesses);
    const OperandRegisters b = load_fragments(b_rows ? layout.b : layout.bt, b_image, p.operand_stride, accesses);
    acc = mfma_16x16x16(p.type, a, b, acc);
  }

  FragmentPathResult result;
  result.out_of_image_accesses = accesses.out_of_image;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(static_cast<std::size_t>(kTile * p.out_stride), nan);
  std::vector<int> stores(out.size(), 0);
  for (int lane = 0; lane < kWave; ++lane) {
    for (int i = 0; i < kValues; ++i) {
      const int at = layout.acc.row(lane, i) * p.out_stride + layout.acc.col(lane, i);
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
    for (int col = 0; col < p.out_stride; ++col) {
      const auto at = static_cast<std::size_t>(row * p.out_stride + col);
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

std::vector<double> plain_product(const TileProblem& p) {
  const int k_total = kTile * p.k_tiles;
  std::vector<double> c(static_cast<std::size_t>(kTile * kTile), 0.0);
  for (int m = 0; m < kTile; ++m) {
    for (int n = 0; n < kTile; ++n) {
      double sum = 0.0;
      for (int k = 0; k < k_total; ++k) sum += double{p.a[m * k_total + k]} * double{p.b[k * kTile + n]};
      c[static_cast<std::size_t>(m * kTile + n)] = sum;
    }
  }
  return c;
}

int mismatches(const FragmentPathResult& result, const std::vector<double>& expected) {
  int count = result.stray_stores + result.out_of_image_accesses;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    // NaN (no lane stored here, or a lane read padding) compares unequal.
    if (!(double{result.c[e]} == expected[e])) ++count;
  }
  return count;
}

}  // namespace mlacheck::test
