// `mlacheck mutate`'s hunt for a fault (cli/fault_search.hpp) without a GPU: a case runner that
// stands in for the device shows which problems each fault's hunt draws and what it shrinks to.
#include "cli/fault_search.hpp"

#include <gtest/gtest.h>

#include <variant>
#include <vector>

#include "core/mla_sequence.hpp"

namespace mlacheck::cli {
namespace {

// mutate's own limits (cli/mutate_command.cpp) at the default sizes.
FaultSearchOptions mutate_like_options() {
  FaultSearchOptions o;
  o.mla_limits.max_batch = o.gather_limits.max_batch = 8;
  o.mla_limits.max_kv_len = o.gather_limits.max_kv_len = 2048;
  o.mla_limits.max_oracle_flops = 4e9;
  o.mla_limits.device_shapes_only = true;
  return o;
}

// Plays the device: with `fault` on, a case is FAILED where `shows` says the fault shows; every
// other run PASSES. Records each problem it is given with the fault on.
struct FakeDevice {
  Fault fault;
  bool (*shows)(const MlaDecodeProblem&);
  std::vector<MlaDecodeProblem> drawn;

  CaseResult operator()(const CaseProblem& c, const FaultSet& faults) {
    CaseResult row;
    row.state = ResultState::passed;
    const auto* p = std::get_if<MlaDecodeProblem>(&c);
    if (p == nullptr || !faults.has(fault)) return row;
    drawn.push_back(*p);
    if (shows(*p)) {
      row.state = ResultState::failed;
      row.reason = "O: stale plan";
    }
    return row;
  }
};

// UPSTREAM R5: the plan of a sequence's first step replayed at the later ones is wrong as soon as
// some step's lengths differ from the first's, on the persistent path.
bool stale_plan_shows(const MlaDecodeProblem& p) {
  if (!is_sequence(p) || p.path != DecodePath::persistent) return false;
  for (int s = 1; s < p.steps; ++s) {
    if (sequence_step(p, s).kv_lens != sequence_step(p, 0).kv_lens) return true;
  }
  return false;
}

TEST(FaultSearch, PlanStaleAtReplayIsHuntedOnPersistentSequencesAndShrinksToTwoSteps) {
  const MlaGenLimits limits = fault_mla_limits(Fault::plan_stale_at_replay, mutate_like_options().mla_limits);
  EXPECT_EQ(limits.sequence_percent, 100);
  EXPECT_EQ(limits.path, DecodePath::persistent);
  FakeDevice device{Fault::plan_stale_at_replay, stale_plan_shows, {}};
  const FaultSearchResult r = search_fault(
      Fault::plan_stale_at_replay, [&](const CaseProblem& c, const FaultSet& f) { return device(c, f); },
      mutate_like_options());
  ASSERT_TRUE(r.caught) << r.error;
  // The first draw is a persistent sequence whose lengths change: caught at once.
  EXPECT_EQ(r.cases, 1);
  ASSERT_FALSE(device.drawn.empty());
  EXPECT_TRUE(stale_plan_shows(device.drawn.front())) << to_repro(device.drawn.front());
  // Shrunk toward the smallest sequence that still shows it.
  const MlaDecodeProblem shrunk = parse_mla_decode(r.repro);
  EXPECT_EQ(shrunk.steps, 2) << r.repro;
  EXPECT_EQ(shrunk.path, DecodePath::persistent) << r.repro;
  EXPECT_EQ(batch(shrunk), 1) << r.repro;
}

TEST(FaultSearch, OtherFaultsHuntOneStepProblems) {
  // A sequence runs the oracle every step: the other faults' hunts keep their one-step cases.
  FakeDevice device{Fault::empty_rows_unwritten, [](const MlaDecodeProblem&) { return false; }, {}};
  FaultSearchOptions options = mutate_like_options();
  options.max_cases = 30;
  const FaultSearchResult r = search_fault(
      Fault::empty_rows_unwritten, [&](const CaseProblem& c, const FaultSet& f) { return device(c, f); }, options);
  EXPECT_FALSE(r.caught);
  EXPECT_EQ(r.cases, 30);
  ASSERT_EQ(device.drawn.size(), 30u);
  for (const MlaDecodeProblem& p : device.drawn) EXPECT_FALSE(is_sequence(p)) << to_repro(p);
  const MlaGenLimits unchanged = fault_mla_limits(Fault::empty_rows_unwritten, options.mla_limits);
  EXPECT_EQ(unchanged.sequence_percent, 0);
  EXPECT_FALSE(unchanged.path.has_value());
}

}  // namespace
}  // namespace mlacheck::cli
