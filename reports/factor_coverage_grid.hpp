#pragma once
// The production factor coverage as the HTML report draws it, an optional input: how many of the
// report's cases hold each factor value (plan/production_factors.csv), and the combinations of
// `strength` factors' values the cases hold, with those none does. Plain names and counts,
// because reports know nothing of the plan: the caller measures (cli/factor_coverage.hpp).
#include <cstddef>
#include <string>
#include <vector>

namespace mlacheck {

struct FactorCoverageGrid {
  struct Value {
    std::string factor, value;
    int cases = 0;           // report cases holding the value
    std::string provenance;  // who runs it, from the table
  };
  std::string table;  // the factor table's file
  int strength = 3;
  std::size_t combinations = 0;        // allowed combinations of `strength` factors' values
  std::vector<std::string> uncovered;  // "heads=8 q_dtype=f16 q_len=>8", held by no case
  std::vector<Value> values;
};

}  // namespace mlacheck
