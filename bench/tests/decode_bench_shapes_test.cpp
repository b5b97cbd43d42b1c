// The bench's shapes (plan/), roofline arithmetic and speed targets, without a GPU.
#include <gtest/gtest.h>

#include <string>

#include "bench/decode_roofline.hpp"
#include "plan/bench_shapes.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem shape_named(const std::string& name) {
  for (const MlaDecodeProblem& p : decode_bench_shapes(false)) {
    if (p.name == name) return p;
  }
  ADD_FAILURE() << "no bench shape " << name;
  return {};
}

TEST(DecodeBenchShapes, EveryShapeRunsOnBothPathsWithItsOwnName) {
  const auto shapes = decode_bench_shapes(false);
  // Per path: 11 bf16 shapes at each of two cache lengths, and 3 fp8 ones.
  EXPECT_EQ(shapes.size(), 2u * (2u * 11u + 3u));
  for (const MlaDecodeProblem& p : shapes) {
    EXPECT_EQ(shape_named(p.name).name, p.name);  // names are unique: the path comparison finds its twin
    EXPECT_EQ(batch(p), 128);
  }
}

TEST(DecodeBenchShapes, BytesAndFlopsFollowTheRoofline) {
  const MlaDecodeProblem p = shape_named("h16-kv4096-q1.split_kv");
  // KV 128 x 4096 x 576 x 2 bytes, q 128 x 16 x 576 x 2, O and LSE 128 x 16 x (512 x 2 + 4).
  EXPECT_DOUBLE_EQ(decode_min_bytes(p), 128.0 * 4096 * 1152 + 128.0 * 16 * 1152 + 128.0 * 16 * 1028);
  EXPECT_DOUBLE_EQ(decode_flops(p), 2.0 * (576 + 512) * 128 * 4096 * 16);
  // q_len 2: the first row sees one token fewer.
  EXPECT_DOUBLE_EQ(decode_flops(shape_named("h16-kv4096-q2.split_kv")), 2.0 * (576 + 512) * 128 * (4095 + 4096) * 16);
}

TEST(DecodeBenchShapes, TargetsAreIssue16s) {
  const double copy = 3000.0;
  const auto target = [&](const std::string& name, double gbps, double tflops) {
    return decode_target(shape_named(name), gbps, tflops, copy);
  };
  EXPECT_EQ(target("h64-kv4096-q1.split_kv", 2550, 0).what, "85% of copy bandwidth");
  EXPECT_TRUE(target("h64-kv4096-q1.split_kv", 2550, 0).met);
  EXPECT_FALSE(target("h8-kv8192-q1.persistent", 2549, 0).met);
  EXPECT_EQ(target("h32-kv4096-q1-lv256.split_kv", 2250, 0).what, "75% of copy bandwidth");
  EXPECT_TRUE(target("h32-kv4096-q1-lv256.split_kv", 2250, 0).met);
  EXPECT_FALSE(target("h32-kv4096-q1-lv256.split_kv", 2249, 0).met);
  EXPECT_EQ(target("h128-kv4096-q1.split_kv", 0, 350).what, "350 TFLOP/s");
  EXPECT_TRUE(target("h128-kv8192-q2.persistent", 0, 350).met);
  EXPECT_FALSE(target("h64-kv4096-q2.split_kv", 3000, 349.9).met);
  // q_len 2 below 64 heads has no target.
  EXPECT_EQ(target("h32-kv4096-q2.split_kv", 0, 0).what, "");
  EXPECT_TRUE(target("h32-kv4096-q2.split_kv", 0, 0).met);
}

TEST(DecodeBenchShapes, PersistentIsHeldToItsSplitKvTwin) {
  EXPECT_TRUE(persistent_target(0.97).met);
  EXPECT_TRUE(persistent_target(kPathComparisonNoise).met);
  EXPECT_FALSE(persistent_target(1.05).met);
  EXPECT_EQ(persistent_target(0.0).what, "");  // no twin timed
}

}  // namespace
}  // namespace mlacheck
