// Host-only checks of the gather's addressing and launch plans; no GPU needed.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "device/layout/cache_geometry.hpp"
#include "device/layout/kv_gather.hpp"
#include "device/layout/tests/gather_cases.hpp"

namespace mlacheck::layout::test {
namespace {

// Pointers aligned like device allocations (256 bytes). plan_kv_gather() reads their alignment,
// never their memory, so host stand-ins do.
KvGatherBuffers stand_in_buffers(const KvGatherProblem& p) {
  alignas(256) static std::byte cache[16];
  alignas(256) static std::byte table[16];
  alignas(256) static std::byte cu[16];
  alignas(256) static std::byte k_out[16];
  alignas(256) static std::byte v_out[16];
  return {cache,
          reinterpret_cast<const std::int32_t*>(table),
          max_blocks_per_request(p),
          reinterpret_cast<const std::int32_t*>(cu),
          k_out,
          v_out};
}

class GatherHost : public testing::TestWithParam<GatherCase> {};

// The kernels' address function is core's cache_offset(), element for element: the first, second
// and last block, every token, head and channel of them, K and V.
TEST_P(GatherHost, GeometryOffsetsAreCoreCacheOffsets) {
  const KvGatherProblem p = gather_problem(GetParam());
  const CacheGeometry g = cache_geometry(p);
  std::size_t differing = 0;
  for (const int block : {0, 1, p.num_blocks - 1}) {
    for (int head = 0; head < p.num_kv_heads; ++head) {
      for (int token = 0; token < p.block_size; ++token) {
        for (int c = 0; c < p.head_size; ++c) {
          for (const bool is_v : {false, true}) {
            if (g.offset(is_v, block, head, token, c) != cache_offset(p, is_v, block, head, token, c)) ++differing;
          }
        }
      }
    }
  }
  EXPECT_EQ(differing, 0u) << to_repro(p);
}

// The plan takes the path the strides allow: full 16-byte runs (and SHUFFLE V tiles) unless the
// padding breaks alignment, element by element when it does.
TEST_P(GatherHost, PlanTakesTheWidestPathTheStridesAllow) {
  const GatherCase& c = GetParam();
  const KvGatherProblem p = gather_problem(c);
  const KvGatherPlan plan = plan_kv_gather(p, stand_in_buffers(p));
  const int full_run = 16 / static_cast<int>(storage_bytes(p.cache_dtype));
  const int expected_run = c.padding == Padding::odd ? 1 : full_run;
  EXPECT_EQ(plan.k.kernel, GatherKernel::runs);
  EXPECT_EQ(plan.k.run_elems, expected_run);
  const bool tiles = c.layout == CacheLayout::shuffle && c.padding != Padding::odd;
  EXPECT_EQ(plan.v.kernel, tiles ? GatherKernel::shuffle_v_tiles : GatherKernel::runs);
  EXPECT_EQ(plan.v.run_elems, c.layout == CacheLayout::shuffle && !tiles ? 1 : expected_run);
}

std::string test_name(const testing::TestParamInfo<GatherCase>& param_info) { return case_name(param_info.param); }

INSTANTIATE_TEST_SUITE_P(Layouts, GatherHost, testing::ValuesIn(grid_cases()), test_name);

// Narrow rows: 3 x 36 NHD moves runs of 4 channels (36 = 4 * 9), whatever the dtype allows.
TEST(GatherPlan, RunsNeverCrossAHeadRow) {
  GatherCase c;
  c.kv_heads = 3;
  c.head_size = 36;
  for (const DType t : {DType::bf16, DType::fp8_e4m3fn}) {
    c.cache_dtype = c.out_dtype = t;
    const KvGatherProblem p = gather_problem(c);
    const KvGatherPlan plan = plan_kv_gather(p, stand_in_buffers(p));
    EXPECT_EQ(plan.k.run_elems, 4) << to_string(t);
    EXPECT_EQ(plan.v.run_elems, 4) << to_string(t);
  }
}

// A buffer that is aligned only to its element size narrows the runs, it is not refused.
TEST(GatherPlan, MisalignedOutputNarrowsRuns) {
  const KvGatherProblem p = gather_problem(GatherCase{});
  KvGatherBuffers buffers = stand_in_buffers(p);
  buffers.k_out = static_cast<std::byte*>(buffers.k_out) + 2;  // bf16-aligned, not 4-byte aligned
  const KvGatherPlan plan = plan_kv_gather(p, buffers);
  EXPECT_EQ(plan.k.run_elems, 1);
  EXPECT_EQ(plan.v.run_elems, 8);
}

}  // namespace
}  // namespace mlacheck::layout::test
