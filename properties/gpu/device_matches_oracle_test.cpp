// The GPU backend against the Eigen oracle over the whole mla_decode space, on every path the
// generator asks for (persistent, split-KV, auto), through the same driver as `mlacheck run`.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "harness/mla_case.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

// Where the property's time goes, printed after it: the case limits (case_limits.hpp) are tuned
// from these, since the default run has a time budget.
struct TimeSplit {
  int cases = 0;
  double oracle_ms = 0.0;
  double kernels_ms = 0.0;
  double whole_ms = 0.0;
};

TEST(MlaDecodeOnGpu, MatchesOracle) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  const std::string property = current_property();
  Backend* backend = gpu_backends().front();
  TimeSplit time;
  const bool held = check_property([&] {
    const MlaDecodeProblem p = *gen_mla_decode_problem(kOracleCaseLimits);
    const std::vector<std::string> buckets = mla_buckets(p, true);
    const CaseResult row = run_mla_case(p, backend, "");
    if (row.state != ResultState::skipped) {
      ++time.cases;
      time.oracle_ms += row.reference_ms;
      time.kernels_ms += row.device_ms;
      time.whole_ms += row.wall_ms;
    }
    discard_if_refused(property, buckets, row.state == ResultState::skipped ? std::optional(row.reason) : std::nullopt);
    require_passed(row);
    coverage().passed(property, buckets);
    tag_mla_case(p);
  });
  std::cout << time.cases << " cases run in " << time.whole_ms / 1e3 << " s: oracle " << time.oracle_ms / 1e3
            << " s, kernels " << time.kernels_ms / 1e3 << " s, the rest (fills, transfers, compare) "
            << (time.whole_ms - time.oracle_ms - time.kernels_ms) / 1e3 << " s" << std::endl;
  // kOracleCaseLimits draws sequences: the property must have checked each kind.
  if (held) coverage().expect(property, all_mla_buckets(true, true, true));
}

}  // namespace
}  // namespace mlacheck
