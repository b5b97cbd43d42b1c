#include "reference/mla_decode_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "core/dtype.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

namespace {

using MatrixRM = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using FloatRowsMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using FloatRowMap = Eigen::Map<const Eigen::RowVectorXf>;

// K of one request: its latents in token order, dequantised. Exact in double: a cache value has at
// most 24 significant bits and so has the float scale, so their product needs at most 48 of 53.
void gather_latents(const MlaDecodeProblem& p, const MlaDecodeInputs& in, std::span<const std::int32_t> slots,
                    MatrixRM& k) {
  const int width = lk(p);
  const double kv_scale = p.kv_scale;
  k.resize(static_cast<Eigen::Index>(slots.size()), width);
  for (std::size_t pos = 0; pos < slots.size(); ++pos) {
    const float* latent = in.kv_cache.data() + static_cast<std::size_t>(slots[pos]) * static_cast<std::size_t>(width);
    k.row(static_cast<Eigen::Index>(pos)) = FloatRowMap(latent, width).cast<double>() * kv_scale;
  }
}

// A kernel's float -> input-dtype conversion of its P tile (see PRounding::to_q_dtype).
template <class Block>
void round_like_kernel_p(Block&& e, DType t) {
  for (Eigen::Index r = 0; r < e.rows(); ++r) {
    for (Eigen::Index c = 0; c < e.cols(); ++c) e(r, c) = round_to(t, static_cast<float>(e(r, c)));
  }
}

void expect_size(std::size_t actual, std::size_t expected, const std::string& what) {
  if (actual != expected) {
    throw std::invalid_argument("MLA decode inputs: " + what + " holds " + std::to_string(actual) +
                                " values, the problem needs " + std::to_string(expected));
  }
}

}  // namespace

void check_mla_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  validate(p);
  const auto width = static_cast<std::size_t>(lk(p));
  expect_size(in.q.size(), static_cast<std::size_t>(total_q_tokens(p)) * static_cast<std::size_t>(heads(p)) * width,
              "q");
  expect_size(in.kv_cache.size(),
              static_cast<std::size_t>(p.num_blocks) * static_cast<std::size_t>(p.block_size) * width, "kv_cache");
}

MlaDecodeOutputs<double> mla_decode_reference(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                              PRounding rounding) {
  check_mla_inputs(p, in);
  const PageIndices pages = expand_page_indices(p, in);
  const int h = heads(p);
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const std::vector<int> qo = qo_indptr(p);
  const auto tokens = static_cast<std::size_t>(qo.back());

  MlaDecodeOutputs<double> out;
  out.o.resize(tokens * static_cast<std::size_t>(h) * static_cast<std::size_t>(lv));
  out.lse.resize(tokens * static_cast<std::size_t>(h));

  MatrixRM k, s;  // reused across requests to keep allocations out of the loop
  Eigen::VectorXd row_max, row_sum;
  for (int b = 0; b < batch(p); ++b) {
    const int kv = p.kv_lens[b];
    const int q_len = p.q_lens[b];
    const int rows = q_len * h;
    const auto first_row = static_cast<std::size_t>(qo[b]) * static_cast<std::size_t>(h);
    gather_latents(p, in, std::span(pages.kv_indices).subspan(static_cast<std::size_t>(pages.kv_indptr[b]),
                                                              static_cast<std::size_t>(kv)),
                   k);
    const MatrixRM q = FloatRowsMap(in.q.data() + first_row * static_cast<std::size_t>(width), rows, width)
                           .cast<double>();
    s.resize(rows, kv);
    s.noalias() = p.scale * q * k.transpose();  // S, overwritten in place by E below

    row_max.resize(rows);
    row_sum.resize(rows);
    for (int t = 0; t < q_len; ++t) {
      const int visible = kv - q_len + t + 1;  // causal, aligned bottom-right
      auto seen = s.block(t * h, 0, h, visible);
      auto m = row_max.segment(t * h, h);
      m = seen.rowwise().maxCoeff();
      seen.array().colwise() -= m.array();
      seen = seen.array().exp();
      row_sum.segment(t * h, h) = seen.rowwise().sum();
      if (rounding == PRounding::to_q_dtype) round_like_kernel_p(seen, p.q_dtype);
      s.block(t * h, visible, h, kv - visible).setZero();  // masked: contributes nothing to E V
    }

    Eigen::Map<MatrixRM> o(out.o.data() + first_row * static_cast<std::size_t>(lv), rows, lv);
    o.noalias() = s * k.leftCols(lv);
    o.array().colwise() /= row_sum.array();  // correctly rounded on every code path
    // Evaluated in Eigen's aligned storage, then copied: vectorised and scalar log differ in the
    // last bit, and evaluating into the output vector would let its heap alignment decide which
    // elements take which path, making results depend on the allocation.
    row_max.array() += row_sum.array().log();
    std::copy_n(row_max.data(), rows, out.lse.begin() + static_cast<std::ptrdiff_t>(first_row));
  }
  return out;
}

}  // namespace mlacheck
