// The shaped fill profiles (core/fill_profile.hpp) produce what they promise: the sink profile's
// scores reach the hundreds with an attention sink that takes a real share of the weight, the
// extreme profile's codes reach their dtype's largest finite values and its subnormals, fp8 scales
// from 2^-8 to 2^8 keep both shapes, and the layout and TP invariants of the uniform fills hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/mla_inputs.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem model(FillProfile profile, DType kv_dtype, float kv_scale = 1.0f) {
  MlaDecodeProblem p;
  p.total_heads = 32;
  p.kv_lora_rank = 512;
  p.rope_dim = 64;
  p.kv_lens = {300, 4097};
  p.q_lens = {1, 2};
  p.kv_dtype = kv_dtype;
  p.kv_scale = kv_scale;
  p.seed = 12;
  p.profile = profile;
  return with_defaults(p);
}

// The cached latent of (request, pos), dequantised.
std::vector<double> latent(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int r, int pos) {
  const int block = in.block_table[r * in.block_table_stride + pos / p.block_size];
  const std::size_t slot = static_cast<std::size_t>(block) * p.block_size + pos % p.block_size;
  std::vector<double> out(static_cast<std::size_t>(lk(p)));
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = double(in.kv_cache[slot * out.size() + c]) * p.kv_scale;
  return out;
}

// Scores of every q row of request r against the request's keys (no causal mask: the shapes of the
// scores, not a reference): [rows][kv_len].
std::vector<std::vector<double>> scores(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int r) {
  const std::vector<int> qo = qo_indptr(p);
  const std::size_t width = static_cast<std::size_t>(lk(p));
  std::vector<std::vector<double>> keys;
  for (int pos = 0; pos < p.kv_lens[r]; ++pos) keys.push_back(latent(p, in, r, pos));
  std::vector<std::vector<double>> out;
  for (int t = qo[r]; t < qo[r + 1]; ++t) {
    for (int h = 0; h < heads(p); ++h) {
      const float* q = in.q.data() + (static_cast<std::size_t>(t) * heads(p) + h) * width;
      std::vector<double> row;
      for (const auto& k : keys) {
        double s = 0.0;
        for (std::size_t c = 0; c < width; ++c) s += double(q[c]) * k[c];
        row.push_back(s * p.scale);
      }
      out.push_back(row);
    }
  }
  return out;
}

double share_of_first_key(const std::vector<double>& row) {
  const double m = *std::max_element(row.begin(), row.end());
  double l = 0.0;
  for (double s : row) l += std::exp(s - m);
  return std::exp(row[0] - m) / l;
}

TEST(FillProfile, SinkScoresSpanNearZeroToHundredsWithASink) {
  for (const auto& [dtype, scale] : {std::pair{DType::bf16, 1.0f}, std::pair{DType::fp8_e4m3fn, 0x1p-8f},
                                     std::pair{DType::fp8_e4m3fnuz, 0x1p8f}, std::pair{DType::f16, 1.0f}}) {
    const MlaDecodeProblem p = model(FillProfile::sink, dtype, scale);
    const MlaDecodeInputs in = make_inputs(p);
    SCOPED_TRACE(std::string(to_string(dtype)) + " kv_scale=" + std::to_string(scale));
    double lowest_max = std::numeric_limits<double>::infinity(), highest_max = 0.0;
    int sink_dominant = 0, sink_minor = 0, rows = 0;
    for (int r = 0; r < batch(p); ++r) {
      for (const auto& row : scores(p, in, r)) {
        const double top = *std::max_element(row.begin(), row.end());
        lowest_max = std::min(lowest_max, top);
        highest_max = std::max(highest_max, top);
        const double share = share_of_first_key(row);
        sink_dominant += share > 0.2;
        sink_minor += share < 0.01;
        ++rows;
      }
    }
    // Row offsets 4..512 (lambda in [2^-6, 2] times 256): a row max near 0 and rows in the hundreds.
    EXPECT_LT(lowest_max, 16.0);
    EXPECT_GT(highest_max, 200.0);
    EXPECT_LT(highest_max, 1200.0);
    // The sink takes a real share in some rows and almost nothing in others.
    EXPECT_GE(sink_dominant, rows / 8) << rows << " rows";
    EXPECT_GE(sink_minor, rows / 8) << rows << " rows";
    // The values (the first Lv channels) stay a mixture of noise: no structure, all finite.
    double largest_value = 0.0;
    for (int pos = 0; pos < 300; ++pos) {
      const std::vector<double> k = latent(p, in, 0, pos);
      for (int c = 0; c < p.kv_lora_rank; ++c) largest_value = std::max(largest_value, std::abs(k[c]));
    }
    EXPECT_GT(largest_value, 0.0);
    EXPECT_LT(largest_value, 0.1 * std::abs(latent(p, in, 0, 0)[static_cast<std::size_t>(lk(p) - 1)]));
  }
}

TEST(FillProfile, ExtremeCodesReachTheLargestFiniteAndTheSubnormals) {
  for (const auto& [dtype, scale] :
       {std::pair{DType::fp8_e4m3fn, 0x1p-8f}, std::pair{DType::fp8_e4m3fn, 1.0f},
        std::pair{DType::fp8_e4m3fnuz, 0x1p8f}, std::pair{DType::f16, 1.0f}, std::pair{DType::bf16, 1.0f}}) {
    const MlaDecodeProblem p = model(FillProfile::extreme, dtype, scale);
    const MlaDecodeInputs in = make_inputs(p);
    SCOPED_TRACE(std::string(to_string(dtype)) + " kv_scale=" + std::to_string(scale));
    // fp8: 0.9 of the largest code, the value capped at 57344; 16-bit caches: 57344.
    const double reach = is_fp8(dtype) ? std::min(0.9 * max_finite(dtype), 57344.0 / scale) : 57344.0;
    const double smallest_normal = dtype == DType::fp8_e4m3fn     ? 0x1p-6
                                   : dtype == DType::fp8_e4m3fnuz ? 0x1p-7
                                                                  : 0x1p-14;
    double top = 0.0;
    int subnormal = 0;
    for (int r = 0; r < batch(p); ++r) {
      for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
        for (double v : latent(p, in, r, pos)) {
          const double code = v / scale;
          ASSERT_TRUE(std::isfinite(code));
          ASSERT_LE(std::abs(v), 57344.0);
          top = std::max(top, std::abs(code));
          subnormal += code != 0.0 && std::abs(code) < smallest_normal;
        }
      }
    }
    EXPECT_GT(top, 0.95 * reach);
    EXPECT_LE(top, reach * (1 + 0x1p-3));  // one rounding of the dtype above the reach at most
    if (dtype != DType::bf16) {
      EXPECT_GT(subnormal, 1000);
    }
    // Scores: the huge tokens spread to tens, the tiny ones sit at 0.
    double highest = 0.0, lowest = std::numeric_limits<double>::infinity();
    for (const auto& row : scores(p, in, 0)) {
      for (double s : row) {
        highest = std::max(highest, std::abs(s));
        lowest = std::min(lowest, std::abs(s));
      }
    }
    EXPECT_GT(highest, 20.0);
    EXPECT_LT(highest, 400.0);
    EXPECT_LT(lowest, 1e-3);
  }
}

// A shrunk case rapidcheck found: at softmax scale 1e-6 with an f16 q and an fp8 cache of scale
// 2^-8 both shapes asked for q near 2e7, inf in f16, and every output was NaN.
TEST(FillProfile, QStaysFiniteInItsDtypeAtTinyScales) {
  for (FillProfile profile : {FillProfile::sink, FillProfile::extreme}) {
    for (float kv_scale : {0x1p-8f, 1.0f, 0x1p8f}) {
      for (double scale : {1e-6, 1e-3}) {
        MlaDecodeProblem p = model(profile, DType::fp8_e4m3fn, kv_scale);
        p.q_dtype = DType::f16;
        p.scale = scale;
        const MlaDecodeInputs in = make_inputs(p);
        double largest = 0.0;
        for (float v : in.q) {
          ASSERT_TRUE(std::isfinite(v)) << to_string(profile) << " kv_scale " << kv_scale << " scale " << scale;
          largest = std::max(largest, std::fabs(double(v)));
        }
        EXPECT_LE(largest, 0.5 * max_finite(DType::f16)) << to_string(profile);
        EXPECT_GT(largest, 0.0) << to_string(profile);
      }
    }
  }
}

TEST(FillProfile, ShapedFillsKeepTheLayoutAndRankInvariants) {
  for (FillProfile profile : {FillProfile::sink, FillProfile::extreme}) {
    MlaDecodeProblem whole = model(profile, DType::fp8_e4m3fn, 0.5f);
    whole.kv_lens = {40, 17};
    whole.q_lens = {3, 2};
    whole.block_size = 1;
    whole.num_blocks = 0;
    whole = with_defaults(whole);
    const MlaDecodeInputs base = make_inputs(whole);
    EXPECT_EQ(make_inputs(whole).kv_cache, base.kv_cache);  // deterministic
    // Block size and block order change where a latent lives, never its value.
    MlaDecodeProblem paged = whole;
    paged.block_size = 16;
    paged.num_blocks = 0;
    paged = with_defaults(paged);
    const MlaDecodeInputs in = make_inputs(paged);
    for (int r = 0; r < batch(whole); ++r) {
      for (int pos = 0; pos < whole.kv_lens[r]; ++pos) {
        ASSERT_EQ(latent(paged, in, r, pos), latent(whole, base, r, pos)) << r << "," << pos;
      }
    }
    // The ranks of a model slice one q.
    const int tp = 4;
    const std::size_t rank_row = static_cast<std::size_t>(whole.total_heads / tp * lk(whole));
    for (int rank = 0; rank < tp; ++rank) {
      MlaDecodeProblem p = whole;
      p.tp = tp;
      p.tp_rank = rank;
      const std::vector<float> q = make_inputs(p).q;
      for (int t = 0; t < total_q_tokens(whole); ++t) {
        const auto from = base.q.begin() + static_cast<std::ptrdiff_t>((t * tp + rank) * rank_row);
        ASSERT_TRUE(std::equal(from, from + static_cast<std::ptrdiff_t>(rank_row),
                               q.begin() + static_cast<std::ptrdiff_t>(t * rank_row)))
            << "rank " << rank << " token " << t;
      }
    }
    // Values are of their dtypes.
    for (float v : base.q) ASSERT_EQ(round_to(whole.q_dtype, v), v);
  }
}

}  // namespace
}  // namespace mlacheck
