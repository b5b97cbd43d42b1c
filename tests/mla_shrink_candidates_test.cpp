// The candidates a failing mla_decode case shrinks through (core/mla_shrink_candidates.hpp): every
// one valid, canonical and strictly smaller, in a fixed order, on problems of every kind (large
// batches, tensor parallelism, fp8, a pool past 4 GiB, decode sequences).
#include "core/mla_shrink_candidates.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/mla_sequence.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem large_case() {
  const TestRequests requests{{5521, 17, 0, 300, 64, 1, 2048, 900}, {4, 1, 3, 2, 1, 1, 4, 1}, 64};
  MlaDecodeProblem p = on_tp_rank(test_problem("large", 128, requests), 8, 3);
  p = with_dtypes(p, DType::f16, DType::f16, DType::f32);
  p.profile = FillProfile::sink;
  p.seed = 42;
  p = with_defaults(p);
  p.num_blocks += 5;  // spare pool blocks
  return p;
}

MlaDecodeProblem fp8_past_4gib() {
  MlaDecodeProblem p = test_problem("fp8", 16, {{70, 33}, {1, 1}});
  p = with_dtypes(p, DType::fp8_e4m3fn, DType::fp8_e4m3fn, DType::bf16, 2.0f);
  p.q_scale = 0.25f;
  p.scale = 0.1;  // not the default: kept as it is
  p = with_defaults(p);
  p.first_block = first_block_past_4gib(p);
  p.num_blocks = 0;
  return with_defaults(p);
}

MlaDecodeProblem sequence_case() { return with_defaults(join_and_leave_sequence()); }

std::vector<MlaDecodeProblem> samples() { return {large_case(), fp8_past_4gib(), sequence_case(), with_defaults({})}; }

TEST(MlaShrinkCandidates, EveryCandidateIsValidCanonicalAndStrictlySmaller) {
  for (const MlaDecodeProblem& p : samples()) {
    validate(p);
    const std::vector<ShrinkCandidate> cs = mla_shrink_candidates(p);
    for (const ShrinkCandidate& c : cs) {
      SCOPED_TRACE(p.name + ": " + c.change);
      EXPECT_NO_THROW(validate(c.problem));
      EXPECT_EQ(parse_mla_decode(to_repro(c.problem)), c.problem);
      EXPECT_LT(shrink_size(c.problem), shrink_size(p));
      EXPECT_FALSE(c.change.empty());
      EXPECT_EQ(c.problem.name, p.name);
      EXPECT_EQ(c.problem.seed, p.seed);
    }
  }
}

TEST(MlaShrinkCandidates, OrderIsFixed) {
  for (const MlaDecodeProblem& p : samples()) {
    const std::vector<ShrinkCandidate> a = mla_shrink_candidates(p);
    const std::vector<ShrinkCandidate> b = mla_shrink_candidates(parse_mla_decode(to_repro(p)));
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].problem, b[i].problem);
      EXPECT_EQ(a[i].change, b[i].change);
    }
  }
}

TEST(MlaShrinkCandidates, FewerRequestsComeFirstHalvesBeforeSingles) {
  const std::vector<ShrinkCandidate> cs = mla_shrink_candidates(large_case());
  ASSERT_GE(cs.size(), 3u);
  EXPECT_EQ(cs[0].change, "drop requests 0-3 of 8");
  EXPECT_EQ(cs[0].problem.kv_lens, (std::vector<int>{64, 1, 2048, 900}));
  EXPECT_EQ(cs[1].change, "drop requests 4-7 of 8");
  // The pool follows the requests and keeps its spare blocks.
  EXPECT_EQ(cs[0].problem.num_blocks, blocks_needed(cs[0].problem) + 5);
  bool single = false;
  for (const ShrinkCandidate& c : cs) single = single || c.change == "drop request 7 of 8";
  EXPECT_TRUE(single);
}

TEST(MlaShrinkCandidates, CoversEveryDimension) {
  const std::vector<ShrinkCandidate> cs = mla_shrink_candidates(large_case());
  const auto has = [&](std::string_view prefix) {
    for (const ShrinkCandidate& c : cs) {
      if (c.change.starts_with(prefix)) return true;
    }
    return false;
  };
  for (std::string_view what :
       {"kv of request 0: 5521 -> 4", "q of request 0: 4 -> 1", "tp 8 -> 1", "rank 3 -> 0", "heads per rank 16 -> 1",
        "lv 512 -> 16", "rope 64 -> 0", "bs 64 -> 1", "q_dtype f16 -> bf16", "kv_dtype f16 -> bf16",
        "o_dtype f32 -> bf16", "blocks ", "profile sink -> uniform"}) {
    EXPECT_TRUE(has(what)) << what;
  }
  EXPECT_FALSE(has("fill random -> exact")) << "fill exact needs the uniform profile first";
  for (const ShrinkCandidate& c : cs) {
    if (c.change == "tp 8 -> 1 (the rank's 16 heads as the model)") {
      EXPECT_EQ(c.problem.total_heads, 16);
      EXPECT_EQ(c.problem.tp_rank, 0);
    }
    if (c.change == "lv 512 -> 16") {  // the default scale follows Lk
      EXPECT_EQ(c.problem.scale, 1.0 / std::sqrt(16.0 + 64.0));
    }
  }
}

TEST(MlaShrinkCandidates, Fp8QueriesGoFirstAndThePoolStaysPast4GiB) {
  const MlaDecodeProblem p = fp8_past_4gib();
  ASSERT_TRUE(cache_rows_past_4gib(p));
  bool q_first = false, kv_alone = false, to_zero = false;
  for (const ShrinkCandidate& c : mla_shrink_candidates(p)) {
    EXPECT_EQ(c.problem.scale, 0.1) << c.change;
    if (c.change == "q_dtype fp8_e4m3fn -> bf16") {
      q_first = true;
      EXPECT_EQ(c.problem.q_scale, 1.0f);
    }
    kv_alone = kv_alone || c.change.starts_with("kv_dtype");
    if (c.change.starts_with("first_block")) {
      to_zero = true;
      EXPECT_EQ(c.problem.first_block, 0);
    } else {
      EXPECT_TRUE(cache_rows_past_4gib(c.problem)) << c.change;
    }
  }
  EXPECT_TRUE(q_first);
  EXPECT_FALSE(kv_alone) << "a bf16 cache under fp8 queries is no valid problem";
  EXPECT_TRUE(to_zero);
}

TEST(MlaShrinkCandidates, SequencesShrinkTowardOneStep) {
  const MlaDecodeProblem p = sequence_case();
  bool one = false, four = false;
  for (const ShrinkCandidate& c : mla_shrink_candidates(p)) {
    if (c.change == "steps 5 -> 1") {
      one = true;
      EXPECT_EQ(c.problem, with_defaults(sequence_step(p, 0)));
    }
    if (c.change == "steps 5 -> 4") {
      four = true;
      EXPECT_EQ(c.problem.steps, 4);
      EXPECT_EQ(c.problem.leaves, (std::vector<int>{2, 4, 4}));
    }
  }
  EXPECT_TRUE(one);
  EXPECT_TRUE(four);
}

TEST(MlaShrinkCandidates, TheSmallestProblemHasNone) {
  MlaDecodeProblem p;
  p.total_heads = 1;
  p.kv_lora_rank = 16;
  p.rope_dim = 0;
  p.block_size = 1;
  p.fill = FillMode::exact;
  EXPECT_TRUE(mla_shrink_candidates(with_defaults(p)).empty());
}

// Following the first candidate again and again ends (the measure only falls), at a problem with
// no candidates.
TEST(MlaShrinkCandidates, RepeatedShrinkingEnds) {
  for (MlaDecodeProblem p : samples()) {
    int steps = 0;
    for (auto cs = mla_shrink_candidates(p); !cs.empty(); cs = mla_shrink_candidates(p)) {
      p = cs.back().problem;  // the last: the smallest change, the longest walk
      ASSERT_LT(++steps, 100000);
    }
    EXPECT_EQ(batch(p), 1);
  }
}

}  // namespace
}  // namespace mlacheck
