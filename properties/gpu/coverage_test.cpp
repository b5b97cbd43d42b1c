// The coverage registry's verdict, without a GPU: a bucket with no case checked and passed is a
// hole, whether it received no case or only cases the backend refused.
#include <gtest/gtest.h>

#include "properties/gpu/coverage.hpp"

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

TEST(Coverage, TheExpectedMlaBucketsAreTheDeviceShapesOnly) {
  // The properties that count coverage draw device shapes; an f32 bucket could only be refused.
  for (const std::string& b : all_mla_buckets(true)) EXPECT_EQ(b.find("f32"), std::string::npos) << b;
}

}  // namespace
}  // namespace mlacheck
