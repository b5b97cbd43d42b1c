// The covering array generator and the production factor tables: every allowed combination is
// covered, impossible ones never appear, the check notices a missing row, and the default plan's
// cover-N cases hold their rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "plan/coverage_cases.hpp"
#include "plan/covering_array.hpp"
#include "plan/data_files.hpp"
#include "plan/production_factors.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck {
namespace {

const RowAllowed kAll = [](const std::vector<int>&) { return true; };

FactorTable production_table() {
  const FactorTableFiles files = production_factor_tables("");
  return load_factor_table(files.factors, files.impossible);
}

std::vector<int> domains(const FactorTable& t) {
  std::vector<int> d;
  for (const Factor& f : t.factors) d.push_back(static_cast<int>(f.values.size()));
  return d;
}

TEST(CoveringArray, FullFactorialAtFullStrength) {
  const CoveringArray a = build_covering_array({2, 3, 2}, 3, kAll);
  EXPECT_EQ(a.rows.size(), 12u);
  EXPECT_TRUE(a.unreachable.empty());
  EXPECT_TRUE(uncovered_combinations(required_combinations({2, 3, 2}, 3, kAll), a.rows).empty());
}

TEST(CoveringArray, PairwiseOfFourBinaryFactorsIsSmallAndComplete) {
  const std::vector<int> d = {2, 2, 2, 2};
  const CoveringArray a = build_covering_array(d, 2, kAll);
  EXPECT_LE(a.rows.size(), 6u);  // 16 rows hold every pair; 5 or 6 is what a greedy build reaches
  EXPECT_EQ(required_combinations(d, 2, kAll).size(), 24u);
  EXPECT_TRUE(uncovered_combinations(required_combinations(d, 2, kAll), a.rows).empty());
}

TEST(CoveringArray, ConstraintsAreKeptAndImplicitConflictsReported) {
  // b=0 is excluded with a=0 and with a=1: the pairs holding b=0 pass a partial check (a is not
  // yet assigned) but no full row holds them.
  const RowAllowed allowed = [](const std::vector<int>& r) { return !(r[0] >= 0 && r[1] == 0); };
  const CoveringArray a = build_covering_array({2, 2, 2}, 2, allowed);
  for (const auto& row : a.rows) EXPECT_NE(row[1], 0);
  EXPECT_EQ(a.unreachable.size(), 2u);  // (b=0, c=0), (b=0, c=1)
  for (const Combination& c : a.unreachable) {
    EXPECT_EQ(c.factors, (std::vector<int>{1, 2}));
    EXPECT_EQ(c.values[0], 0);
  }
}

TEST(CoveringArray, StrengthOutOfRangeIsAnError) {
  EXPECT_THROW(required_combinations({2, 2}, 3, kAll), std::invalid_argument);
  EXPECT_THROW(required_combinations({2, 2}, 0, kAll), std::invalid_argument);
}

TEST(ProductionFactors, StrengthThreeArrayCoversEveryAllowedCombination) {
  const FactorTable t = production_table();
  const RowAllowed allowed = [&](const std::vector<int>& r) { return t.excluded_by(r) == nullptr; };
  const CoveringArray a = build_covering_array(domains(t), 3, allowed);
  EXPECT_TRUE(a.unreachable.empty());
  const std::vector<Combination> required = required_combinations(domains(t), 3, allowed);
  EXPECT_TRUE(uncovered_combinations(required, a.rows).empty());
  for (const auto& row : a.rows) EXPECT_EQ(t.excluded_by(row), nullptr);
  // Every row covers something no other row does: taking any one away leaves a combination
  // uncovered, which the check reports.
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    std::vector<std::vector<int>> rest = a.rows;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(r));
    EXPECT_FALSE(uncovered_combinations(required, rest).empty()) << "row " << r << " is redundant";
  }
}

TEST(ProductionFactors, ImpossibleCombinationsAreNotRequired) {
  const FactorTable t = production_table();
  ASSERT_FALSE(t.impossible.empty());
  const RowAllowed allowed = [&](const std::vector<int>& r) { return t.excluded_by(r) == nullptr; };
  const int q = 1, kv = 2;  // q_dtype, kv_dtype
  const int fp8 = t.value_index(q, "fp8_e4m3fn");
  for (const Combination& c : required_combinations(domains(t), 2, allowed)) {
    if (c.factors == std::vector<int>{q, kv} && c.values[0] == fp8) {
      EXPECT_EQ(c.values[1], t.value_index(kv, "fp8_e4m3fn"));
    }
  }
}

TEST(ProductionFactors, CoverCasesAreValidHoldTheirRowsAndAreDeterministic) {
  const FactorTable t = production_table();
  const std::vector<MlaDecodeProblem> cases = covering_array_cases(t, 3, 1);
  EXPECT_EQ(cases, covering_array_cases(t, 3, 1));
  std::vector<std::pair<std::string, MlaDecodeProblem>> named;
  for (const MlaDecodeProblem& p : cases) {
    EXPECT_NO_THROW(validate(p));
    EXPECT_LE(max_kv_len(p), 600) << p.name;  // small enough for the oracle
    named.emplace_back(p.name, p);
  }
  const CoverageReport report = measure_coverage(t, 3, named);
  EXPECT_TRUE(report.uncovered.empty());
  // Without the first case, its combinations are reported uncovered.
  named.erase(named.begin());
  EXPECT_FALSE(measure_coverage(t, 3, named).uncovered.empty());
}

TEST(ProductionFactors, BadTablesNameFileLineAndColumn) {
  const auto dir = std::filesystem::temp_directory_path() / "mlacheck_factor_table_test";
  std::filesystem::create_directories(dir);
  const FactorTableFiles good = production_factor_tables("");
  const std::string factors = (dir / "f.csv").string(), impossible = (dir / "i.csv").string();
  std::filesystem::copy_file(good.impossible, impossible, std::filesystem::copy_options::overwrite_existing);
  {
    std::ifstream in(good.factors);
    std::ofstream out(factors);
    out << in.rdbuf() << "heads,12,Kimi-K3,zero,bad tp,\n";
  }
  try {
    load_factor_table(factors, impossible);
    FAIL() << "a tp that is no number was accepted";
  } catch (const scenarios::TableError& e) {
    EXPECT_EQ(e.file(), factors);
    EXPECT_EQ(e.column(), "tp");
    EXPECT_GT(e.line(), 1);
  }
  {
    std::ofstream out(factors);
    out << "factor,value,model,tp,source,max_strength\nq_len,3-5,-,,made up,\n";
  }
  EXPECT_THROW(load_factor_table(factors, impossible), scenarios::TableError);
  std::filesystem::copy_file(good.factors, factors, std::filesystem::copy_options::overwrite_existing);
  {
    std::ofstream out(impossible);
    out << "when,reason\nq_dtype=fp8_e5m2 & kv_dtype=bf16,no such dtype\n";
  }
  try {
    load_factor_table(factors, impossible);
    FAIL() << "an unknown value in a combination was accepted";
  } catch (const scenarios::TableError& e) {
    EXPECT_EQ(e.column(), "when");
    EXPECT_EQ(e.line(), 2);
  }
  std::filesystem::remove_all(dir);
}

TEST(CoveringArray, AFactorCappedAtTwoJoinsPairsOnly) {
  const RowAllowed all = [](const std::vector<int>&) { return true; };
  const std::vector<int> caps = {0, 0, 0, 2};
  const std::vector<Combination> required = required_combinations({2, 2, 2, 2}, 3, all, caps);
  // The uncapped triple {0, 1, 2}: 8 combinations; factor 3 with each other factor: 3 x 4 pairs.
  EXPECT_EQ(required.size(), 8u + 12u);
  for (const Combination& c : required) {
    const bool capped = std::find(c.factors.begin(), c.factors.end(), 3) != c.factors.end();
    EXPECT_EQ(c.factors.size(), capped ? 2u : 3u);
  }
  const CoveringArray a = build_covering_array({2, 2, 2, 2}, 3, all, caps);
  EXPECT_TRUE(uncovered_combinations(required, a.rows).empty());
  EXPECT_THROW(required_combinations({2, 2}, 2, all, {2}), std::invalid_argument);
}

TEST(ProductionFactors, PoolsPastFourGibJoinPairsOnly) {
  const FactorTableFiles files = production_factor_tables("");
  const FactorTable t = load_factor_table(files.factors, files.impossible);
  for (std::size_t f = 0; f < kFactorNames.size(); ++f) {
    EXPECT_EQ(t.factors[f].max_strength, kFactorNames[f] == "past_4gib" ? 2 : 0) << kFactorNames[f];
  }
}

}  // namespace
}  // namespace mlacheck
