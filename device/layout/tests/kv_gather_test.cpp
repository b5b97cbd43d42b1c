// KV gather on the device against its host twin (reference/kv_gather_reference.hpp), bitwise, for
// every layout (NHD, SHUFFLE; contiguous, hybrid-interleaved; dense strides, padding that keeps
// 16-byte alignment, padding that breaks it), every cache/output dtype pair and block size.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "core/gather_inputs.hpp"
#include "device/layout/tests/bitwise_equal.hpp"
#include "device/layout/tests/codes.hpp"
#include "device/layout/tests/gather_cases.hpp"
#include "device/layout/tests/layout_runs.hpp"
#include "device/layout/tests/on_device.hpp"
#include "reference/kv_gather_reference.hpp"

namespace mlacheck::layout::test {
namespace {

auto where_in(const KvGatherProblem& p, const char* tensor) {
  return [heads = p.num_kv_heads, size = p.head_size, tensor](std::size_t i) {
    const auto index = static_cast<std::int64_t>(i);
    return std::string(tensor) + " token " + std::to_string(index / size / heads) + " head " +
           std::to_string(index / size % heads) + " channel " + std::to_string(index % size);
  };
}

class KvGather : public OnDevice<testing::TestWithParam<GatherCase>> {};

TEST_P(KvGather, MatchesHostTwinBitwise) {
  const KvGatherProblem p = gather_problem(GetParam());
  const KvGatherInputs in = make_inputs(p);
  const KvGatherOutputs<float> expected = kv_gather_reference(p, in);
  const GatherRun run = run_kv_gather(p, in);
  const std::size_t element = storage_bytes(p.out_dtype);
  for (const bool is_v : {false, true}) {
    const std::vector<std::uint32_t> want = encode_codes(p.out_dtype, is_v ? expected.v : expected.k);
    const std::vector<std::uint32_t> got = codes_of(is_v ? run.v : run.k, element);
    EXPECT_TRUE(bitwise_equal(std::span<const std::uint32_t>(want), std::span<const std::uint32_t>(got),
                              where_in(p, is_v ? "V" : "K")))
        << to_repro(p);
  }
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

std::string test_name(const testing::TestParamInfo<GatherCase>& param_info) { return case_name(param_info.param); }

INSTANTIATE_TEST_SUITE_P(Layouts, KvGather, testing::ValuesIn(grid_cases()), test_name);
INSTANTIATE_TEST_SUITE_P(Shapes, KvGather, testing::ValuesIn(shape_cases()), test_name);
INSTANTIATE_TEST_SUITE_P(Batches, KvGather, testing::ValuesIn(batch_cases()), test_name);

}  // namespace
}  // namespace mlacheck::layout::test
