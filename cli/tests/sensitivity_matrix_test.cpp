// The sensitivity matrix's logic on made-up rows, without a GPU: what counts as caught, the
// per-fault figures, the problems that make `scenarios --sensitivity` exit 1, the CSV, the
// --fault choice, and the plan it runs (the main job's mla_decode cases).
#include "cli/sensitivity_matrix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sensitivity_run.hpp"
#include "cli/sensitivity_section.hpp"
#include "harness/device_outcome.hpp"
#include "plan/data_files.hpp"

namespace mlacheck::cli {
namespace {

// A row of case `id` in `state`, its O at `used` of its rms bound.
CaseResult row(const std::string& id, ResultState state, double used) {
  CaseResult r;
  r.id = id;
  r.state = state;
  ComparedTensor o;
  o.name = "O";
  o.tol.rms = 1e-2;
  o.tol.rule = "made up";
  o.stats.rms_rel_err = used * 1e-2;
  r.tensors.push_back(o);
  return r;
}

constexpr ResultState P = ResultState::passed;
constexpr ResultState F = ResultState::failed;
constexpr ResultState E = ResultState::errored;
constexpr ResultState S = ResultState::skipped;

SensitivityRun run_of(std::uint64_t seed, std::optional<Fault> fault, std::vector<CaseResult> rows,
                      std::size_t cases = 3) {
  SensitivityRun r;
  r.seed = seed;
  r.fault = fault;
  r.rows = std::move(rows);
  r.cases = cases;
  return r;
}

const Fault kLse = Fault::precision_lse_bf16;
const Fault kSum = Fault::precision_row_sum_bf16;

// Two faults, three seeds, three cases (a, b, c) per seed.
std::vector<SensitivityRun> example_runs() {
  return {
      run_of(1, std::nullopt, {row("a", P, 0.1), row("b", P, 0.2), row("c", P, 0.05)}),
      run_of(2, std::nullopt, {row("a", P, 0.3), row("b", P, 0.1), row("c", S, 0.0)}),
      run_of(3, std::nullopt, {row("a", P, 0.1), row("b", P, 0.1), row("c", P, 0.1)}),
      // lse: caught by 2, 1 and 3 rows (one ERRORED); worst failing 40, worst passing 0.9
      run_of(1, kLse, {row("a", F, 5.0), row("b", F, 40.0), row("c", P, 0.2)}),
      run_of(2, kLse, {row("a", E, 0.0), row("b", P, 0.9), row("c", S, 0.0)}),
      run_of(3, kLse, {row("a", F, 2.0), row("b", F, 3.0), row("c", F, 1.5)}),
      // row sum: caught on seeds 1 and 3, missed on seed 2 (c FAILED, but c did not pass clean there)
      run_of(1, kSum, {row("a", F, 1.2), row("b", P, 0.95), row("c", P, 0.1)}),
      run_of(2, kSum, {row("a", P, 0.4), row("b", P, 0.3), row("c", F, 9.0)}),
      run_of(3, kSum, {row("a", P, 0.1), row("b", F, 1.1), row("c", P, 0.1)}),
  };
}

const std::vector<Fault> kFaults = {kLse, kSum};
const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

TEST(SensitivityMatrix, CountsSeedsAndRowsAndBoundsPerFault) {
  const SensitivityMatrix m = summarise_sensitivity(example_runs(), kFaults, kSeeds);
  ASSERT_EQ(m.faults.size(), 2u);
  const FaultSensitivity& lse = m.faults[0];
  EXPECT_EQ(lse.name(), "precision-lse-bf16");
  EXPECT_EQ(lse.seeds_good(), 3u);
  EXPECT_EQ(lse.rows_caught_min(), 1u);
  EXPECT_EQ(lse.rows_caught_median(), 2.0);
  EXPECT_EQ(lse.rows_caught_max(), 3u);
  EXPECT_EQ(lse.rows_per_seed(), 3u);
  EXPECT_DOUBLE_EQ(lse.worst_failing_bound_used(), 40.0);
  EXPECT_DOUBLE_EQ(lse.worst_passing_bound_used(), 0.9);

  const FaultSensitivity& sum = m.faults[1];
  EXPECT_EQ(sum.seeds_good(), 2u);
  EXPECT_EQ(sum.seeds[1].rows_caught, 0u) << "a row that failed clean too is no catch";
  EXPECT_EQ(sum.rows_caught_min(), 0u);
  EXPECT_EQ(sum.rows_caught_median(), 1.0);
  EXPECT_DOUBLE_EQ(sum.worst_failing_bound_used(), 1.2);
  EXPECT_DOUBLE_EQ(sum.worst_passing_bound_used(), 0.95);

  EXPECT_EQ(m.clean.name(), "clean");
  EXPECT_EQ(m.clean.seeds_good(), 3u) << "a SKIPPED (generated) row is no failure";
  EXPECT_DOUBLE_EQ(m.clean.worst_passing_bound_used(), 0.3);
}

TEST(SensitivityMatrix, AMissedSeedIsAProblemNamingFaultAndSeed) {
  const SensitivityMatrix m = summarise_sensitivity(example_runs(), kFaults, kSeeds);
  const std::vector<std::string> problems = sensitivity_problems(m);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "precision-row-sum-bf16 missed on seed 2: none of 3 rows caught it");
}

TEST(SensitivityMatrix, TheEvenMedianIsTheMeanOfTheMiddleTwo) {
  std::vector<SensitivityRun> runs = example_runs();
  runs.push_back(run_of(4, std::nullopt, {row("a", P, 0.1), row("b", P, 0.1), row("c", P, 0.1)}));
  runs.push_back(run_of(4, kLse, {row("a", F, 2.0), row("b", F, 2.0), row("c", F, 2.0)}));
  runs.push_back(run_of(4, kSum, {row("a", F, 2.0), row("b", P, 0.1), row("c", P, 0.1)}));
  const SensitivityMatrix m = summarise_sensitivity(runs, kFaults, std::vector<std::uint64_t>{1, 2, 3, 4});
  EXPECT_EQ(m.faults[0].rows_caught_median(), 2.5);  // 1 2 3 3
}

TEST(SensitivityMatrix, ACleanFailureAndLostRowsAreProblems) {
  std::vector<SensitivityRun> runs = example_runs();
  runs[2].rows[1] = row("b", F, 1.7);
  runs[2].rows[1].reason = "O: rms";
  runs[5].rows.pop_back();
  runs[5].lost = "the seed's process died: signal 9";
  const SensitivityMatrix m = summarise_sensitivity(runs, kFaults, kSeeds);
  EXPECT_EQ(m.clean.seeds_good(), 2u);
  EXPECT_EQ(m.faults[0].seeds_good(), 2u) << "a seed with rows lost is not good, however many rows caught it";
  const std::vector<std::string> problems = sensitivity_problems(m);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0], "clean seed 3: 1 rows of the correct kernels did not pass (first: b: O: rms)");
  EXPECT_EQ(problems[1], "precision-lse-bf16 seed 3: 2 of 3 rows came back (the seed's process died: signal 9)");
  EXPECT_EQ(problems[2], "precision-row-sum-bf16 missed on seed 2: none of 3 rows caught it");
  // b failed clean on seed 3, so row sum's only catch there no longer counts.
  EXPECT_EQ(problems[3], "precision-row-sum-bf16 missed on seed 3: none of 3 rows caught it");
}

TEST(SensitivityMatrix, ARunThatNeverCameIsLostAndStrayRunsAreRefused) {
  std::vector<SensitivityRun> runs = example_runs();
  runs.pop_back();  // row sum, seed 3
  const SensitivityMatrix m = summarise_sensitivity(runs, kFaults, kSeeds);
  EXPECT_EQ(m.faults[1].seeds[2].lost, "never ran");
  EXPECT_FALSE(sensitivity_problems(m).empty());

  runs.push_back(run_of(9, kSum, {}));
  EXPECT_THROW(summarise_sensitivity(runs, kFaults, kSeeds), std::logic_error);
  runs.back() = run_of(1, Fault::precision_row_max_bf16, {});
  EXPECT_THROW(summarise_sensitivity(runs, kFaults, kSeeds), std::logic_error);
  runs.back() = example_runs()[3];
  EXPECT_THROW(summarise_sensitivity(runs, kFaults, kSeeds), std::logic_error);
}

TEST(SensitivityMatrix, SummaryCsvHasOneLinePerFaultAfterClean) {
  const SensitivityMatrix m = summarise_sensitivity(example_runs(), kFaults, kSeeds);
  EXPECT_EQ(sensitivity_summary_csv(m),
            "fault,seeds,seeds_caught,missed_seeds,rows_per_seed,rows_caught_min,rows_caught_median,rows_caught_max,"
            "worst_failing_bound_used,worst_passing_bound_used\n"
            "clean,3,3,,3,0,0,0,0,0.3\n"
            "precision-lse-bf16,3,3,,3,1,2,3,40,0.9\n"
            "precision-row-sum-bf16,3,2,2,3,0,1,1,1.2,0.95\n");
}

TEST(SensitivityMatrix, SeedsCsvQuotesFieldsWithCommas) {
  std::vector<SensitivityRun> runs = example_runs();
  runs[3].rows[0].reason = "O: 3 mismatches, rms 0.1";
  const SensitivityMatrix m = summarise_sensitivity(runs, kFaults, kSeeds);
  const std::string csv = sensitivity_seeds_csv(m);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "fault,seed,cases,rows,rows_caught,worst_failing_bound_used,worst_passing_bound_used,lost,first_caught");
  EXPECT_NE(csv.find("\nprecision-lse-bf16,1,3,3,2,40,0.2,,\"a: O: 3 mismatches, rms 0.1\"\n"), std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 3);
}

TEST(SensitivityFaults, FaultNamesMustBePrecisionFaults) {
  EXPECT_EQ(chosen_precision_faults({}).size(), std::size(kPrecisionFaults));
  EXPECT_EQ(chosen_precision_faults({"precision-lse-bf16", "precision-lse-bf16"}), std::vector<Fault>{kLse});
  EXPECT_THROW(chosen_precision_faults({"tile-width-from-lk"}), std::invalid_argument);
  EXPECT_THROW(chosen_precision_faults({"precision-o-bf16"}), std::invalid_argument);
}

TEST(SensitivityPlan, TheMainJobsMlaCasesVaryWithTheSeed) {
  const std::string table = scenario_table_path("");
  ASSERT_FALSE(table.empty());
  const std::vector<SensitivityCase> one = sensitivity_cases(1, 64, table);
  const std::vector<SensitivityCase> two = sensitivity_cases(2, 64, table);
  ASSERT_EQ(one.size(), two.size());
  EXPECT_GT(one.size(), 100u);
  std::size_t generated = 0;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < one.size(); ++i) {
    generated += one[i].origin == CaseOrigin::generated;
    differ += to_repro(one[i].problem) != to_repro(two[i].problem);
  }
  EXPECT_GT(generated, 40u) << "the property sweep's mla_decode draws are in";
  EXPECT_GT(differ, one.size() / 2) << "the seed reaches the default and property sweeps";
  for (const SensitivityCase& c : one) EXPECT_EQ(to_repro(c.problem).rfind("mla_decode:", 0), 0u);
}

// The runs as the isolated processes return them, without a GPU (every row settled as a backend
// that did not start): each seed's runs, clean first, every row in case order under its case's id
// and its set's faults; a case whose process crashes costs that case's rows alone (ERRORED,
// naming the signal), every other row comes back.
TEST(SensitivityRuns, EveryRowComesBackToItsSeedAndSetAndACrashCostsItsOwnRows) {
  SensitivityOptions options;
  options.seeds = {1, 2};
  options.faults = {kLse, kSum};
  options.jobs = 2;
  options.property_cases = 2;
  options.lookahead = 0;
  const std::vector<SensitivityCase> plan = sensitivity_cases(1, options.property_cases, "");
  ASSERT_GT(plan.size(), 3u);
  const std::string victim = plan[2].problem.name;
  ::setenv("MLACHECK_TEST_CRASH_CASE", victim.c_str(), 1);
  std::vector<std::uint64_t> seeds_done;
  const std::vector<SensitivityRun> runs =
      run_sensitivity(options, [&](std::uint64_t seed, const std::vector<SensitivityRun>& of_seed) {
        seeds_done.push_back(seed);
        EXPECT_EQ(of_seed.size(), 3u);
      });
  ::unsetenv("MLACHECK_TEST_CRASH_CASE");
  std::sort(seeds_done.begin(), seeds_done.end());
  EXPECT_EQ(seeds_done, (std::vector<std::uint64_t>{1, 2}));
  ASSERT_EQ(runs.size(), 6u);
  std::size_t crashed = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const SensitivityRun& r = runs[k];
    EXPECT_EQ(r.seed, options.seeds[k / 3]);
    EXPECT_EQ(r.fault, k % 3 == 0 ? std::nullopt : std::optional<Fault>(options.faults[k % 3 - 1]));
    EXPECT_TRUE(r.lost.empty()) << r.lost;
    const std::vector<SensitivityCase> cases = sensitivity_cases(r.seed, options.property_cases, "");
    ASSERT_EQ(r.cases, cases.size());
    ASSERT_EQ(r.rows.size(), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const CaseResult& row = r.rows[i];
      EXPECT_EQ(row.id, cases[i].problem.name);
      EXPECT_EQ(row.repro, to_repro(cases[i].problem));
      EXPECT_EQ(row.faults, describe_faults(r.fault ? FaultSet{*r.fault} : FaultSet{}));
      const bool died = row.reason.find("died while running this case: signal 6") != std::string::npos;
      EXPECT_EQ(died, row.id == victim) << row.id << ": " << row.reason;
      if (died) {
        EXPECT_EQ(row.state, E);
        ++crashed;
      }
    }
  }
  EXPECT_GE(crashed, 3u) << "the victim's clean row and both faulted rows";
}

}  // namespace
}  // namespace mlacheck::cli
