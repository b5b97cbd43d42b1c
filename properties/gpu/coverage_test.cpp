// The coverage registry's verdict, without a GPU: a bucket with no case checked and passed is a
// hole, whether it received no case or only cases the backend refused.
#include "properties/gpu/coverage.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "generators/mla_problem_gen.hpp"
#include "properties/gpu/case_limits.hpp"

namespace mlacheck {
namespace {

TEST(Coverage, ABucketWhoseEveryCaseWasRefusedIsAHole) {
  CoverageRegistry registry;
  registry.expect("P", {"kv_dtype=bf16", "kv_dtype=f16", "heads<16"});
  registry.passed("P", {"kv_dtype=bf16"});
  registry.refused("P", {"kv_dtype=f16"}, "kv_dtype=f16: not taken");
  registry.refused("P", {"kv_dtype=f16"}, "kv_dtype=f16: not taken");
  EXPECT_EQ(registry.holes(), (std::vector<std::string>{"P: kv_dtype=f16 (every case refused: kv_dtype=f16: not taken)",
                                                        "P: heads<16"}));
  registry.passed("P", {"kv_dtype=f16", "heads<16"});
  EXPECT_TRUE(registry.holes().empty());
}

TEST(Coverage, WrittenCountsNameEveryPropertyBucketAndCase) {
  CoverageRegistry registry;
  registry.expect("P", {"kv_dtype=bf16", "heads<16"});
  registry.passed("P", {"kv_dtype=bf16"});
  registry.passed("P", {"kv_dtype=bf16", "heads<16"});
  registry.refused("P", {"heads<16"}, "why");
  registry.passed("Q", {"layout=nhd"});  // a property that did not complete: counted, not expected
  std::ostringstream out;
  registry.write(out);
  EXPECT_EQ(out.str(),
            "cases\tP\t2\n"
            "bucket\tP\theads<16\t1\t1\t1\n"
            "bucket\tP\tkv_dtype=bf16\t2\t0\t1\n"
            "cases\tQ\t1\n"
            "bucket\tQ\tlayout=nhd\t1\t0\t0\n");
}

TEST(Coverage, TheExpectedMlaBucketsAreTheDeviceShapesOnly) {
  // The properties that count coverage draw device shapes; an f32 bucket could only be refused.
  for (const std::string& b : all_mla_buckets(true)) EXPECT_EQ(b.find("f32"), std::string::npos) << b;
}

TEST(Coverage, EveryCaseHasOneHeadCountOneLengthOneProfileAndOneSequenceKind) {
  const std::vector<std::string> all = all_mla_buckets(false, true, true);
  const auto count_in = [](const std::vector<std::string>& buckets, const std::vector<std::string>& family) {
    int n = 0;
    for (const std::string& b : buckets) n += static_cast<int>(std::count(family.begin(), family.end(), b));
    return n;
  };
  const std::vector<std::string> head_counts = {"heads<16", "heads 16..63", "heads>=64"};
  const std::vector<std::string> lengths = {"kv_len<=16", "kv_len 17..256", "kv_len 257..16382", "kv_len>=16383"};
  const std::vector<std::string> profiles = {"profile=uniform", "profile=sink", "profile=extreme"};
  const std::vector<std::string> sequences = {"sequence: one step", "sequence: join or leave", "sequence: fixed batch"};
  for (const auto& family : {head_counts, lengths, profiles, sequences}) {
    EXPECT_EQ(count_in(all, family), 3 + (family == lengths));
  }
  EXPECT_EQ(count_in(all_mla_buckets(false, false), lengths), 3);
  EXPECT_EQ(count_in(all_mla_buckets(false), sequences), 0);
  const auto gen = gen_mla_decode_problem(MlaGenLimits{
      .max_batch = 8, .max_kv_len = 600, .long_kv_percent = 5, .device_shapes_only = true, .sequence_percent = 25});
  std::map<std::string, int> sequence_kinds;
  for (int i = 0; i < 200; ++i) {
    const MlaDecodeProblem p = gen(rc::Random(static_cast<std::uint64_t>(i) + 1), 100).value();
    const std::vector<std::string> buckets = mla_buckets(p, false);
    EXPECT_EQ(count_in(buckets, head_counts), 1) << to_repro(p);
    EXPECT_EQ(count_in(buckets, lengths), 1) << to_repro(p);
    EXPECT_EQ(count_in(buckets, profiles), 1) << to_repro(p);
    EXPECT_EQ(count_in(buckets, sequences), 1) << to_repro(p);
    for (const std::string& b : buckets) {
      EXPECT_NE(std::find(all.begin(), all.end(), b), all.end()) << b << " is not an expected bucket";
      ++sequence_kinds[b];
    }
  }
  // The generator reaches every kind of sequence.
  for (const std::string& kind : sequences) EXPECT_GT(sequence_kinds[kind], 0) << kind;
}

// fp8 queries (issue 16) are expected of every mla_decode property, each e4m3 variant and padded to
// 16 heads as rows of bytes, and the device generators fill those buckets well enough that a
// property of a few hundred cases covers them.
TEST(Coverage, Fp8QueryBucketsAreExpectedAndDrawn) {
  const std::vector<std::string> fp8 = {"q_dtype=fp8_e4m3fn", "q_dtype=fp8_e4m3fnuz", "fp8 q, heads padded"};
  const std::vector<std::string> all = all_mla_buckets(false, false);
  for (const std::string& b : fp8) EXPECT_NE(std::find(all.begin(), all.end(), b), all.end()) << b;
  const auto gen = gen_mla_decode_problem(kOracleCaseLimits);
  constexpr int kDraws = 1000;
  std::map<std::string, int> drawn;
  for (int i = 0; i < kDraws; ++i) {
    const MlaDecodeProblem p = gen(rc::Random(static_cast<std::uint64_t>(i) + 7), i % 101).value();
    for (const std::string& b : mla_buckets(p, false)) ++drawn[b];
  }
  for (const std::string& b : fp8) EXPECT_GT(drawn[b], kDraws / 50) << b << ": " << drawn[b] << " of " << kDraws;
}

}  // namespace
}  // namespace mlacheck
