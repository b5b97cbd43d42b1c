#pragma once
// The covering array of the production factors (plan/production_factors.hpp) as mla_decode cases,
// and the coverage of those factors a list of cases reaches.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/mla_problem.hpp"
#include "plan/covering_array.hpp"
#include "plan/production_factors.hpp"

namespace mlacheck {

// The strength of the covering array in the default plan, and of `mlacheck plan --coverage`.
inline constexpr int kDefaultCoverageStrength = 3;

// One case per row of the strength-`strength` covering array of the table's factors, named
// cover-0, cover-1, ...: each row's values sized into a small valid descriptor (three requests of
// up to a few hundred tokens, so the oracle's work stays a fraction of a second) whose classify()
// is that row. Deterministic from the table, strength and seed.
std::vector<MlaDecodeProblem> covering_array_cases(const FactorTable& table, int strength, std::uint64_t seed);

// The descriptor of one row (row index `i` varies the sizes within a value's class).
MlaDecodeProblem cover_case(const FactorTable& table, const std::vector<int>& row, int i, std::uint64_t seed);

struct CoverageReport {
  struct Covered {
    Combination combination;
    std::string case_id;  // the first case in plan order that holds it
  };
  std::vector<Covered> covered;
  std::vector<Combination> uncovered;  // required (not impossible), held by no case
  int cases = 0;                       // mla_decode cases classified
};

// Which of the table's allowed `strength`-way combinations the cases hold, each with its first
// case. Cases are (id, descriptor) in plan order.
CoverageReport measure_coverage(const FactorTable& table, int strength,
                                const std::vector<std::pair<std::string, MlaDecodeProblem>>& cases);

// "heads=8 q_dtype=bf16 q_len=5-8".
std::string describe(const FactorTable& table, const Combination& c);

}  // namespace mlacheck
