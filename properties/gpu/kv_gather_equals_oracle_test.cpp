// The strided KV gather against its host twin, exactly (equal values: the verdict does not tell
// +0 from -0): every layout (NHD, SHUFFLE), contiguous or hybrid-interleaved, dense or randomly
// padded strides, copies and fp8 dequantisation.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "harness/gather_case.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

TEST(KvGatherOnGpu, EqualsOracleExactly) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  const std::string property = current_property();
  Backend* backend = gpu_backends().front();
  const bool held = check_property([&] {
    const KvGatherProblem p = *gen_kv_gather_problem(kGatherCaseLimits);
    const std::vector<std::string> buckets = gather_buckets(p);
    const CaseResult row = run_gather_case(p, backend, "");
    discard_if_refused(property, buckets, row.state == ResultState::skipped ? std::optional(row.reason) : std::nullopt);
    require_passed(row);
    // A copy's tolerance is already 0; dequantisation is allowed one rounding by the verdict, but
    // device and host twin round the same float product once, so they must agree exactly too.
    for (const ComparedTensor& t : row.tensors) {
      if (t.stats.max_abs_err != 0.0) RC_FAIL(t.name + " differs from the host twin\n" + describe_row(row));
    }
    coverage().passed(property, buckets);
    tag_gather_case(p);
  });
  if (held) coverage().expect(property, all_gather_buckets());
}

}  // namespace
}  // namespace mlacheck
