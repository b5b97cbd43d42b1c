// The persistent path's host-side shape rules: it refuses what the shared row-group kernels
// refuse, and its partial buffers follow the plan's head count and partial rows. Host only.
#include "device/persistent/persistent_shape.hpp"

#include <gtest/gtest.h>

#include <string>

#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {
namespace {

MlaDecodeProblem problem(int heads, int lv, int rope) {
  MlaDecodeProblem p;
  p.total_heads = heads;
  p.kv_lora_rank = lv;
  p.rope_dim = rope;
  p.kv_lens = {40, 7};
  p.q_lens = {2, 1};
  return with_defaults(p);
}

TEST(PersistentShape, PaddedHeadsAndWidthsComeFromTheProblem) {
  const PersistentShape s = persistent_shape(problem(8, 256, 64));
  EXPECT_EQ(s.padded_heads, 16);
  EXPECT_EQ(s.lv, 256);
  EXPECT_EQ(s.rope, 64);
  EXPECT_EQ(persistent_unsupported(s), std::nullopt);
}

TEST(PersistentShape, RefusesWhatTheHeadTileKernelsRefuse) {
  for (const auto& [lv, rope] : {std::pair{1024, 64}, std::pair{500, 64}, std::pair{512, 65}}) {
    const MlaDecodeProblem p = problem(16, lv, rope);
    const auto why = persistent_unsupported(persistent_shape(p));
    ASSERT_NE(why, std::nullopt) << lv << " " << rope;
    EXPECT_EQ(why, split_kv_unsupported(split_kv_shape(p, 1)));
  }
  // fp8 queries (issue 16): against a cache of their own fp8 type only, the same rule and reason as
  // split-KV's.
  PersistentShape fp8_q = persistent_shape(problem(16, 512, 64));
  fp8_q.q_dtype = DType::fp8_e4m3fn;
  const auto why = persistent_unsupported(fp8_q);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("kv_dtype=bf16"), std::string::npos) << *why;
  fp8_q.kv_dtype = DType::fp8_e4m3fnuz;
  EXPECT_NE(persistent_unsupported(fp8_q), std::nullopt);
  fp8_q.q_scale = 0.0f;
  fp8_q.kv_dtype = DType::fp8_e4m3fn;
  EXPECT_NE(persistent_unsupported(fp8_q), std::nullopt);
}

TEST(PersistentShape, Fp8QueriesCarryTheirScale) {
  MlaDecodeProblem p = problem(8, 512, 64);
  p.q_dtype = p.kv_dtype = DType::fp8_e4m3fnuz;
  p.kv_scale = 0.5f;
  p.q_scale = 0.3f;
  const PersistentShape s = persistent_shape(with_defaults(p));
  EXPECT_EQ(s.q_dtype, DType::fp8_e4m3fnuz);
  EXPECT_EQ(s.q_scale, 0.3f);
  EXPECT_EQ(s.kv_scale, 0.5f);
  EXPECT_EQ(persistent_unsupported(s), std::nullopt);
  EXPECT_EQ(persistent_shape(problem(8, 512, 64)).q_scale, 1.0f);
}

TEST(PersistentShape, WorkspaceFollowsThePlan) {
  const MetadataInfo plan = metadata_info(/*max_batch=*/3, /*max_q_len=*/5, /*padded_heads=*/32, /*num_cus=*/10);
  const PersistentWorkspace ws = persistent_workspace(plan, 256);
  EXPECT_EQ(ws.partial_lse_floats, std::size_t(plan.partial_rows) * 32);
  EXPECT_EQ(ws.partial_o_floats, std::size_t(plan.partial_rows) * 32 * 256);
  EXPECT_GT(plan.partial_rows, 0);
}

}  // namespace
}  // namespace mlacheck::kernels
