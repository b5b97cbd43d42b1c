#pragma once
// Plan files (plan/tiers/*.plan): the case sources of a run as lines a user copies and extends.
// '#' starts a comment; blank lines are skipped; each other line is a source and its key=value
// settings, each source at most once:
//   oracle-self-checks                       the oracle's checks of itself
//   scenarios [path=FILE]                    the scenario table (default: scenarios/upstream.csv)
//   default-sweeps                           the curated model sweep, decode sequences, gather cases
//   covering-array [strength=N] [factors=FILE]   the production factors' covering array (default 3)
//   properties [seed=N] [size=N] [budget=W]  N cases from the property generators, drawn within
//                                            oracle work (case_work) W; one still over it is drawn again
//   repro-file path=FILE                     one repro string per line (may repeat)
// Relative paths are from the plan file's folder. A malformed line is a PlanFileError naming
// file:line (exit status 2 on the CLI).
#include <stdexcept>
#include <string>

#include "plan/run_plan.hpp"

namespace mlacheck {

class PlanFileError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The plan options of a plan file: every part it does not name is off. A `scenarios` or
// `covering-array` line naming no table sets scenarios_file or factors_file to kDefaultTable,
// which resolve_plan_tables turns into the shipped table (plan/data_files.hpp).
inline constexpr const char* kDefaultTable = "<default>";
RunPlanOptions read_plan_file(const std::string& path);
void resolve_plan_tables(RunPlanOptions& options);

inline constexpr const char* kTierNames[] = {"smoke", "pre-merge", "nightly"};
// The plan file of a named tier (smoke, pre-merge, nightly): plan/tiers/NAME.plan, found as the
// data tables are (plan/data_files.hpp). std::invalid_argument naming the tiers for another name.
std::string tier_plan_path(const std::string& tier);

}  // namespace mlacheck
