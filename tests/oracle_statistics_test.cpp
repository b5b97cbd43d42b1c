// The oracle's statistics (MlaErrorScales) after issue 29: the linear-time grouping by rounding
// bucket against a sort, the scales against the implementation they replaced, and the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/bucket_grouping.hpp"
#include "reference/error_scales_merge.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/p_bucket_kinds.hpp"
#include "tests/legacy_oracle_statistics.hpp"

namespace mlacheck {
namespace {

// --- grouping by bucket code -------------------------------------------------------------------

std::vector<std::uint32_t> sorted_order(const std::vector<std::uint16_t>& codes) {
  std::vector<std::uint32_t> order(codes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return codes[a] != codes[b] ? codes[a] < codes[b] : a < b;  // what the oracle sorted by before
  });
  return order;
}

void expect_sort_order(const std::vector<std::uint16_t>& codes, const std::string& what) {
  std::vector<std::uint32_t> order{99u};  // stale contents must not survive
  CodeSortScratch scratch;
  stable_order_by_code(codes, order, scratch);
  EXPECT_EQ(order, sorted_order(codes)) << what << ", " << codes.size() << " codes";
  // Reused scratch gives the same again.
  stable_order_by_code(codes, order, scratch);
  EXPECT_EQ(order, sorted_order(codes)) << what << " (scratch reused)";
}

TEST(BucketGrouping, MatchesASortByCodeThenToken) {
  std::mt19937 random(29);
  for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 300u, 4097u}) {
    for (std::uint32_t range : {1u, 2u, 7u, 128u, 2048u, 4096u, 4097u, 20000u, 65536u}) {
      std::vector<std::uint16_t> codes(n);
      for (auto& c : codes) c = static_cast<std::uint16_t>(random() % range + (65536u - range) / 2);
      expect_sort_order(codes, "uniform in a range of " + std::to_string(range));
    }
  }
}

TEST(BucketGrouping, KeepsTokenOrderWithinAdversarialTies) {
  // One token; every token in one bucket; two extreme codes (the two-pass path) with ties;
  // descending codes; long runs of equal codes interleaved; a few codes spread over the 16 bits.
  expect_sort_order({0x3F80}, "one token");
  expect_sort_order(std::vector<std::uint16_t>(5000, 0x3C00), "one bucket");
  std::vector<std::uint16_t> extremes;
  for (int i = 0; i < 1000; ++i) extremes.push_back(i % 3 == 0 ? 0 : (i % 3 == 1 ? 0xFFFF : 0x8000));
  expect_sort_order(extremes, "extreme codes");
  std::vector<std::uint16_t> descending(3000);
  for (std::size_t i = 0; i < descending.size(); ++i) descending[i] = static_cast<std::uint16_t>(0x3F80 - i / 7);
  expect_sort_order(descending, "descending runs");
  std::vector<std::uint16_t> interleaved;
  for (int i = 0; i < 4000; ++i) {
    interleaved.push_back(static_cast<std::uint16_t>(i % 2 == 0 ? 0x3F00 + (i / 100) : 0x0100 + (i % 5)));
  }
  expect_sort_order(interleaved, "interleaved runs");
  std::vector<std::uint16_t> sparse;
  for (int i = 0; i < 40; ++i) sparse.push_back(static_cast<std::uint16_t>((i * 40503u) & 0xFFFFu));
  expect_sort_order(sparse, "sparse codes");
}

// --- the scales against the implementation they replaced -----------------------------------------

std::vector<std::pair<std::string, double>> fields(const MlaErrorScales& s) {
  std::vector<std::pair<std::string, double>> f = {
      {"max_abs_q", s.max_abs_q},
      {"max_abs_kv", s.max_abs_kv},
      {"max_score_magnitude", s.max_score_magnitude},
      {"lse_score_rms", s.lse_score_rms},
      {"lse_score_mean", s.lse_score_mean},
      {"p_concentration", s.p_concentration},
      {"o_sq", s.o_sq},
      {"o_quad", s.o_quad},
      {"o_max_sq", s.o_max_sq},
      {"p_weight", s.p_weight},
      {"p_weight_sq", s.p_weight_sq},
      {"p_weight_below_max", s.p_weight_below_max},
      {"p_weight_sq_below_max", s.p_weight_sq_below_max},
      {"p_floor_weight", s.p_floor_weight},
      {"score_weight", s.score_weight},
      {"exp_weight", s.exp_weight},
      {"max_abs_row_max", s.max_abs_row_max},
      {"max_running_max_rises", s.max_running_max_rises},
      {"o_round_sq", s.o_round_sq},
      {"o_elements", s.o_elements},
      {"o_ulp_sq", s.o_ulp_sq},
  };
  for (int i = 0; i < 2; ++i) {
    const std::string b = i == MlaErrorScales::kPBucketBf16 ? "bf16." : "f16.";
    f.push_back({"p_bucketed." + b + "all", s.p_bucketed[i].all});
    f.push_back({"p_bucketed." + b + "all_sq", s.p_bucketed[i].all_sq});
    f.push_back({"p_bucketed." + b + "below_max", s.p_bucketed[i].below_max});
    f.push_back({"p_bucketed." + b + "below_max_sq", s.p_bucketed[i].below_max_sq});
  }
  for (int i = 0; i < 3; ++i) {
    f.push_back({"walk_by_len." + std::to_string(i), s.walk_by_len[i]});
    f.push_back({"o_sq_by_len." + std::to_string(i), s.o_sq_by_len[i]});
  }
  for (int k = 0; k < MlaErrorScales::kBoundaryLevels; ++k) {
    f.push_back({"o_near_boundary_sq." + std::to_string(k), s.o_near_boundary_sq[k]});
  }
  return f;
}

MlaDecodeProblem fixed_problem(const std::string& name) {
  MlaDecodeProblem p = test_problem(name, 16, {{300, 0, 1025, 7}, {1, 2, 3, 1}});
  p.kv_lora_rank = 128;
  p.seed = 29;
  return p;
}

// Problems that reach every branch of the statistics: ties (the exact fill), near ties and a
// dominant sink (sink), subnormal and huge weights (extreme, fp8), padded requests, causal rows,
// rows of one token, an f32 and an f16 output.
std::vector<MlaDecodeProblem> fixed_problems() {
  std::vector<MlaDecodeProblem> out;
  out.push_back(fixed_problem("uniform"));
  MlaDecodeProblem exact = fixed_problem("exact-ties");
  exact.fill = FillMode::exact;
  exact.scale = 0.125;
  out.push_back(exact);
  MlaDecodeProblem sink = fixed_problem("sink");
  sink.profile = FillProfile::sink;
  sink.o_dtype = DType::f16;
  out.push_back(sink);
  MlaDecodeProblem extreme = fixed_problem("extreme-fp8");
  extreme.profile = FillProfile::extreme;
  extreme.kv_dtype = DType::fp8_e4m3fn;
  extreme.kv_scale = 0.75f;
  extreme.o_dtype = DType::f32;
  out.push_back(extreme);
  MlaDecodeProblem tiny = fixed_problem("tiny-scale");
  tiny.scale = 1e-6;
  tiny.kv_lens = {1, 2, 64};
  tiny.q_lens = {1, 2, 1};
  out.push_back(tiny);
  for (MlaDecodeProblem& p : out) p = with_defaults(p);
  return out;
}

TEST(OracleStatistics, EqualTheImplementationTheyReplaced) {
  for (const MlaDecodeProblem& p : fixed_problems()) {
    const MlaDecodeInputs in = make_inputs(p);
    MlaErrorScales now, before;
    const MlaDecodeOutputs<double> out = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &now);
    const MlaDecodeOutputs<double> legacy = legacy_twin::legacy_mla_decode_reference(p, in, PRoundingPoint::kept_f32, &before);
    EXPECT_EQ(out.o, legacy.o) << p.name;
    EXPECT_EQ(out.lse, legacy.lse) << p.name;
    const auto a = fields(now);
    const auto b = fields(before);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double scale = std::max(std::abs(a[i].second), std::abs(b[i].second));
      EXPECT_LE(std::abs(a[i].second - b[i].second), 1e-12 * scale)
          << p.name << ": " << a[i].first << " " << a[i].second << " was " << b[i].second;
    }
    // The problems reach what they are there for: coherent buckets, rows of several tokens.
    EXPECT_GT(now.p_bucketed[MlaErrorScales::kPBucketBf16].all, 0.0) << p.name;
    EXPECT_GT(now.max_running_max_rises, 1.0) << p.name;
  }
}

// --- threads ---------------------------------------------------------------------------------

bool bit_identical(const MlaErrorScales& a, const MlaErrorScales& b) {
  const auto fa = fields(a);
  const auto fb = fields(b);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    if (std::memcmp(&fa[i].second, &fb[i].second, sizeof(double)) != 0) {
      ADD_FAILURE() << fa[i].first << ": " << fa[i].second << " vs " << fb[i].second;
      return false;
    }
  }
  return true;
}

TEST(OracleStatistics, AreBitIdenticalForEveryThreadCount) {
  std::vector<MlaDecodeProblem> problems = fixed_problems();
  // One request of many rows: its rows, not its requests, are spread over the threads.
  MlaDecodeProblem one = fixed_problem("one-request");
  one.total_heads = 64;
  one.kv_lens = {777};
  one.q_lens = {2};
  problems.push_back(with_defaults(one));
  for (const MlaDecodeProblem& p : problems) {
    const MlaDecodeInputs in = make_inputs(p);
    MlaErrorScales single;
    const MlaDecodeOutputs<double> base = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &single, 1);
    for (int threads : {2, 3, 8}) {
      MlaErrorScales many;
      const MlaDecodeOutputs<double> out = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &many, threads);
      EXPECT_EQ(0, std::memcmp(out.o.data(), base.o.data(), out.o.size() * sizeof(double)))
          << p.name << ", " << threads << " threads";
      EXPECT_EQ(0, std::memcmp(out.lse.data(), base.lse.data(), out.lse.size() * sizeof(double)))
          << p.name << ", " << threads << " threads";
      EXPECT_TRUE(bit_identical(single, many)) << p.name << ", " << threads << " threads";
    }
  }
}

TEST(OracleStatistics, MergingAddsSumsAndKeepsMaxima) {
  MlaErrorScales a, b;
  mla_decode_reference(fixed_problems()[0], make_inputs(fixed_problems()[0]), PRoundingPoint::kept_f32, &a);
  mla_decode_reference(fixed_problems()[2], make_inputs(fixed_problems()[2]), PRoundingPoint::kept_f32, &b);
  MlaErrorScales merged;
  merge_error_scales(merged, a);
  EXPECT_TRUE(bit_identical(merged, a));
  merge_error_scales(merged, b);
  EXPECT_EQ(merged.p_weight, a.p_weight + b.p_weight);
  EXPECT_EQ(merged.o_near_boundary_sq[4], a.o_near_boundary_sq[4] + b.o_near_boundary_sq[4]);
  EXPECT_EQ(merged.p_bucketed[1].below_max_sq, a.p_bucketed[1].below_max_sq + b.p_bucketed[1].below_max_sq);
  EXPECT_EQ(merged.max_abs_row_max, std::max(a.max_abs_row_max, b.max_abs_row_max));
  EXPECT_EQ(merged.max_running_max_rises, std::max(a.max_running_max_rises, b.max_running_max_rises));
}

// --- only the judged rounding buckets ---------------------------------------------------------

TEST(OracleStatistics, JudgedBucketsAloneGiveTheSameBounds) {
  const PRoundingPoint points[] = {PRoundingPoint::undeclared, PRoundingPoint::kept_f32, PRoundingPoint::to_bf16,
                                   PRoundingPoint::to_f16,     PRoundingPoint::to_q_dtype, PRoundingPoint::to_mma_input};
  int measured_none = 0, measured_one = 0;
  for (const DType q : {DType::bf16, DType::f16, DType::fp8_e4m3fn}) {
    for (const DType kv : {DType::bf16, DType::f16, DType::fp8_e4m3fn}) {
      MlaDecodeProblem p = fixed_problem("judged");
      p.q_dtype = q;
      p.kv_dtype = kv;
      if (is_fp8(q) && kv != q) continue;  // fp8 queries come with their own cache only
      p = with_defaults(p);
      const MlaDecodeInputs in = make_inputs(p);
      MlaErrorScales both;
      const MlaDecodeOutputs<double> full = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &both);
      for (const PRoundingPoint point : points) {
        const PBucketKinds kinds = p_buckets_judged(p, point);
        EXPECT_FALSE(kinds.bf16 && kinds.f16);
        (kinds.bf16 || kinds.f16 ? measured_one : measured_none)++;
        MlaErrorScales judged;
        const MlaDecodeOutputs<double> out = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &judged, 1, kinds);
        EXPECT_EQ(out.o, full.o);
        const std::string what = p.name + " q " + std::string(to_string(q)) + " kv " + std::string(to_string(kv)) +
                                 ", " + std::string(to_string(point));
        // The measured dtype's buckets are the full run's, bit for bit; the other's are zero.
        EXPECT_EQ(judged.p_bucketed[0].all, kinds.bf16 ? both.p_bucketed[0].all : 0.0) << what;
        EXPECT_EQ(judged.p_bucketed[1].below_max, kinds.f16 ? both.p_bucketed[1].below_max : 0.0) << what;
        const MlaTolerances a = mla_decode_tolerance(p, both, point);
        const MlaTolerances b = mla_decode_tolerance(p, judged, point);
        EXPECT_EQ(a.o.abs, b.o.abs) << what;
        EXPECT_EQ(a.o.rel, b.o.rel) << what;
        EXPECT_EQ(a.o.rms, b.o.rms) << what;
        EXPECT_EQ(a.lse.rms, b.lse.rms) << what;
        EXPECT_EQ(a.oracle_o_rounded, b.oracle_o_rounded) << what;
      }
    }
  }
  // Both kinds of answer are reached: a dtype measured, and nothing measured (kept or split P).
  EXPECT_GT(measured_one, 0);
  EXPECT_GT(measured_none, 0);
}

}  // namespace
}  // namespace mlacheck
