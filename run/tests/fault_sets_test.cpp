// run_cases_under_fault_sets with a stand-in backend, without a GPU: every case runs once per
// fault set, in order, on one preparation, and each row names its own set's faults.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "run/case_prefetch.hpp"
#include "harness/device_outcome.hpp"
#include "plan/default_sweep.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

// Records what it was asked to run, and answers by throwing: the driver makes that an ERRORED row.
class RecordingBackend final : public Backend {
 public:
  std::string name() const override { return "stand-in"; }
  std::string device_name() const override { return "Stand-in GPU"; }
  std::optional<std::string> supports(const MlaDecodeProblem&) const override { return std::nullopt; }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return std::nullopt; }
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& f) override {
    runs.emplace_back(p.name + " q=" + std::to_string(in.q.size()), describe_faults(f));
    throw std::runtime_error("stand-in ran " + p.name);
  }
  KvGatherRun run(const KvGatherProblem& p, const KvGatherInputs&, const FaultSet& f) override {
    runs.emplace_back(p.name, describe_faults(f));
    throw std::runtime_error("stand-in ran " + p.name);
  }
  std::vector<std::pair<std::string, std::string>> runs;  // (case, faults) in call order
};

std::vector<CaseProblem> small_cases() {
  return {with_defaults(test_problem("a", 16, {{17}, {1}})), default_gather_sweep(1).front(),
          with_defaults(test_problem("b", 16, {{65, 3}, {1, 2}}))};
}

TEST(FaultSets, EveryCaseRunsOncePerSetInOrderAndRowsNameTheirSet) {
  const std::vector<CaseProblem> cases = small_cases();
  const std::vector<FaultSet> sets = {{}, {Fault::precision_lse_bf16}, {Fault::precision_running_o_fp16}};
  for (std::size_t lookahead : {std::size_t{0}, std::size_t{2}}) {
    RecordingBackend backend;
    std::vector<std::pair<std::size_t, std::size_t>> order;
    run_cases_under_fault_sets(cases, &backend, "", sets, PrefetchOptions{lookahead},
                               [&](std::size_t i, std::size_t s, CaseResult row) {
                                 order.emplace_back(i, s);
                                 EXPECT_EQ(row.faults, describe_faults(sets[s]));
                                 EXPECT_EQ(row.state, ResultState::errored);
                                 EXPECT_NE(row.reason.find("stand-in ran"), std::string::npos) << row.reason;
                               });
    ASSERT_EQ(order.size(), cases.size() * sets.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      EXPECT_EQ(order[k], std::make_pair(k / sets.size(), k % sets.size())) << "lookahead " << lookahead;
    }
    ASSERT_EQ(backend.runs.size(), order.size());
    // Each set of one case saw the same inputs (one preparation).
    for (std::size_t i = 0; i < cases.size(); ++i) {
      for (std::size_t s = 0; s < sets.size(); ++s) {
        EXPECT_EQ(backend.runs[i * sets.size() + s].first, backend.runs[i * sets.size()].first);
        EXPECT_EQ(backend.runs[i * sets.size() + s].second, describe_faults(sets[s]));
      }
    }
  }
}

TEST(FaultSets, RunCasesIsTheOneSetCase) {
  const std::vector<CaseProblem> cases = small_cases();
  RecordingBackend backend;
  std::vector<std::size_t> seen;
  run_cases(cases, &backend, "", FaultSet{Fault::precision_row_max_bf16}, PrefetchOptions{1},
            [&](std::size_t i, CaseResult row) {
              seen.push_back(i);
              EXPECT_EQ(row.faults, "precision-row-max-bf16");
            });
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace mlacheck
