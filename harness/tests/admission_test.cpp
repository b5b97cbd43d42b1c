// Admission and the refusal policy with a stand-in backend, without a GPU: which GPU a row names,
// and when a device case that did not run is SKIPPED, FAILED or ERRORED.
#include <gtest/gtest.h>

#include "harness/device_outcome.hpp"
#include "harness/mla_case.hpp"
#include "harness/refusal_policy.hpp"

namespace mlacheck {
namespace {

// Runs nothing: admission and the policy never get that far for a refused case.
class RefusingBackend final : public Backend {
 public:
  std::string name() const override { return "stand-in"; }
  std::string device_name() const override { return "Stand-in GPU (sm_00)"; }
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override {
    if (p.q_dtype == DType::f32) return "q_dtype=f32: not taken";
    return std::nullopt;
  }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return std::nullopt; }
  // A pool past 4 GiB does not fit this stand-in's memory.
  std::optional<std::string> lacks_memory(const MlaDecodeProblem& p) const override {
    if (cache_pool_bytes(p) > (std::int64_t{1} << 32))
      return "needs about 4200 MiB of device memory, 1000 MiB are free";
    return std::nullopt;
  }
  MlaDecodeRun run(const MlaDecodeProblem&, const MlaDecodeInputs&, const FaultSet&) override {
    throw std::logic_error("not run in these tests");
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override {
    throw std::logic_error("not run in these tests");
  }
  int device_index() const override { return 3; }
  std::string device_pci_bus_id() const override { return "0000:c1:00.0"; }
};

MlaDecodeProblem f32_problem() {
  MlaDecodeProblem p;
  p.name = "f32";
  p.q_dtype = DType::f32;
  p.kv_lens = {17};
  return with_defaults(p);
}

TEST(Admission, TheRowNamesTheGpuByIndexAndBusId) {
  RefusingBackend backend;
  CaseResult row;
  EXPECT_TRUE(admit_case(row, &backend, "", with_defaults(MlaDecodeProblem{})));
  EXPECT_EQ(row.device, "Stand-in GPU (sm_00)");
  EXPECT_EQ(row.device_index, 3);
  EXPECT_EQ(row.device_pci_bus_id, "0000:c1:00.0");
}

TEST(RefusalPolicy, ACuratedCaseTheBackendRefusesFails) {
  RefusingBackend backend;
  CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
  ASSERT_EQ(row.state, ResultState::skipped);
  settle_unrun_case(row, CaseOrigin::curated, true, true);
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_EQ(row.reason, "the backend refuses a curated case (only generated cases may be skipped): q_dtype=f32: not taken");
}

TEST(RefusalPolicy, AGeneratedCaseTheBackendRefusesStaysSkipped) {
  RefusingBackend backend;
  CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
  settle_unrun_case(row, CaseOrigin::generated, true, true);
  EXPECT_EQ(row.state, ResultState::skipped);
  EXPECT_EQ(row.reason, "q_dtype=f32: not taken");
}

TEST(RefusalPolicy, NoBackendOnAMachineWithGpusIsAnErrorWithoutAnyGpuASkip) {
  for (CaseOrigin origin : {CaseOrigin::curated, CaseOrigin::generated}) {
    CaseResult row = prepare_mla_case(f32_problem(), nullptr, "GPU 0 cannot be used: out of memory").row;
    CaseResult no_gpu = row;
    settle_unrun_case(row, origin, false, true);
    EXPECT_EQ(row.state, ResultState::errored);
    EXPECT_EQ(row.reason, "the backend could not start on a GPU this machine has: GPU 0 cannot be used: out of memory");
    settle_unrun_case(no_gpu, origin, false, false);
    EXPECT_EQ(no_gpu.state, ResultState::skipped);
  }
}

TEST(RefusalPolicy, ACaseTheGpuHasNoMemoryForStaysSkippedWhateverItsOrigin) {
  RefusingBackend backend;
  MlaDecodeProblem p;
  p.name = "past4g";
  p.kv_lens = {17};
  p.block_size = 32;
  p = with_defaults(p);
  p.first_block = first_block_past_4gib(p);
  p.num_blocks = 0;
  p = with_defaults(p);
  for (CaseOrigin origin : {CaseOrigin::curated, CaseOrigin::generated}) {
    CaseResult row = prepare_mla_case(p, &backend, "").row;
    ASSERT_EQ(row.state, ResultState::skipped);
    EXPECT_TRUE(row.skipped_for_memory);
    settle_unrun_case(row, origin, true, true);
    EXPECT_EQ(row.state, ResultState::skipped) << to_string(origin);
    EXPECT_EQ(row.reason,
              "not enough memory on this machine: needs about 4200 MiB of device memory, 1000 MiB are free");
  }
  // The same shape below 4 GiB is admitted.
  p.first_block = 0;
  p.num_blocks = 0;
  CaseResult row;
  EXPECT_TRUE(admit_case(row, &backend, "", with_defaults(p)));
}

TEST(RefusalPolicy, RowsThatRanAreUntouched) {
  CaseResult row;
  row.state = ResultState::passed;
  settle_unrun_case(row, CaseOrigin::curated, true, true);
  EXPECT_EQ(row.state, ResultState::passed);
}

}  // namespace
}  // namespace mlacheck
