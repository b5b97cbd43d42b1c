// The hip backend end to end, through the same driver `mlacheck run` uses: every case of the
// default sweep (model shapes x paths x dtypes x q_len/block-size mixes, every gather layout)
// must PASS against the oracle with intact canaries and no unwritten output. Without a GPU each
// case reports SKIPPED with the reason.
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <ostream>
#include <string>

#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"
#include "plan/default_sweep.hpp"

namespace mlacheck {

// GoogleTest prints parameters in test names and failures: the repro string says what a case is.
void PrintTo(const MlaDecodeProblem& p, std::ostream* out) { *out << to_repro(p); }
void PrintTo(const KvGatherProblem& p, std::ostream* out) { *out << to_repro(p); }

namespace {

// One backend for the whole executable: creating a GPU context per case would dominate the time.
BackendOrReason& shared_backend() {
  static BackendOrReason backend = make_hip_backend(0);
  return backend;
}

void expect_passed(const CaseResult& row) {
  if (row.state == ResultState::skipped && shared_backend().backend == nullptr) GTEST_SKIP() << row.reason;
  if (row.state == ResultState::skipped) GTEST_SKIP() << "unsupported here: " << row.reason;
  EXPECT_EQ(row.state, ResultState::passed) << row.reason << "\n  repro: " << row.repro;
  EXPECT_EQ(row.canaries, "ok");
  for (const ComparedTensor& t : row.tensors) {
    EXPECT_EQ(t.stats.unwritten, 0u) << t.name;
    EXPECT_EQ(t.stats.nonfinite, 0u) << t.name;
  }
}

class MlaSweep : public ::testing::TestWithParam<MlaDecodeProblem> {};
class GatherSweep : public ::testing::TestWithParam<KvGatherProblem> {};

TEST_P(MlaSweep, MatchesTheOracle) {
  expect_passed(run_mla_case(GetParam(), shared_backend().backend.get(), shared_backend().reason));
}

TEST_P(GatherSweep, MatchesTheOracleBitwise) {
  const CaseResult row = run_gather_case(GetParam(), shared_backend().backend.get(), shared_backend().reason);
  expect_passed(row);
  for (const ComparedTensor& t : row.tensors) EXPECT_EQ(t.stats.max_abs_err, 0.0) << t.name;
}

// The stride faults (UPSTREAM S6/S7) put the contiguous-address mistake back; on a
// hybrid-interleaved cache the gather must then be caught, and on a dense one it is harmless.
TEST_P(GatherSweep, StrideFaultIsCaughtExactlyWhereUpstreamBroke) {
  const KvGatherProblem& p = GetParam();
  const Fault fault =
      p.layout == CacheLayout::nhd ? Fault::gather_ignores_strides : Fault::shuffle_gather_ignores_strides;
  const CaseResult row = run_gather_case(p, shared_backend().backend.get(), shared_backend().reason, {fault});
  if (row.state == ResultState::skipped) GTEST_SKIP() << row.reason;
  if (p.interleaved) {
    EXPECT_TRUE(is_failure(row.state)) << "fault " << to_string(fault) << " survived: " << row.repro;
  } else {
    EXPECT_EQ(row.state, ResultState::passed) << row.reason;
  }
}

std::string case_name(const std::string& id) {
  std::string out;
  for (char c : id) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

INSTANTIATE_TEST_SUITE_P(Default, MlaSweep, ::testing::ValuesIn(default_mla_sweep(1)),
                         [](const auto& param_info) { return case_name(param_info.param.name); });
// Decode sequences: every step of each in one session of the hip backend (buffers and plan kept).
INSTANTIATE_TEST_SUITE_P(Sequences, MlaSweep, ::testing::ValuesIn(default_sequence_sweep(1)),
                         [](const auto& param_info) { return case_name(param_info.param.name); });
INSTANTIATE_TEST_SUITE_P(Default, GatherSweep, ::testing::ValuesIn(default_gather_sweep(1)),
                         [](const auto& param_info) { return case_name(param_info.param.name); });

}  // namespace
}  // namespace mlacheck
