#pragma once
// Where mlacheck's data tables (the scenario table, upstream.csv, the known-bug list,
// known_bugs.csv, and the production factors, plan/production_factors.csv) are, from any working directory. Every subcommand and the C API find them through
// here. In order:
//   1. the file the user named (an error when it does not exist);
//   2. beside the binary holding this code, in the layouts mlacheck installs: a wheel's package
//      folder (<package>/data/, beside libmlacheck_capi.so), or a CMake install prefix
//      (<prefix>/share/mlacheck/, found from <prefix>/bin/mlacheck or <prefix>/lib/libmlacheck_capi.so);
//   3. the source tree this build came from (scenarios/), for a binary run from its build tree.
// The first of the folders of 2 and 3 that exists decides; a table missing from it is an error
// naming it (a damaged install), as is no folder at all: a run never drops the scenarios.
#include <string>
#include <vector>

namespace mlacheck {

// The scenario table: `option` when given, else the first of the places above holding upstream.csv.
// std::invalid_argument when none does.
std::string scenario_table_path(const std::string& option);

// The same for known_bugs.csv.
std::string known_bug_table_path(const std::string& option);

// The production factor table (plan/production_factors.csv, its source-tree folder plan/ in step
// 3) and the impossible-combination table, which always lies beside it.
struct FactorTableFiles {
  std::string factors, impossible;
};
FactorTableFiles production_factor_tables(const std::string& option);
// A tier's plan file (plan/tiers/NAME.plan in the source tree, beside the tables when installed).
std::string tier_file_path(const std::string& file_name);

// The places tried for a table file name, in order (step 2 and 3 above; step 3 in `source_folder`
// of the source tree), for messages and tests.
std::vector<std::string> data_table_candidates(const std::string& file_name,
                                               const std::string& source_folder = "scenarios");

}  // namespace mlacheck
