#pragma once
// Where mlacheck's data files are, from any working directory: the scenario table and the
// known-bug list ship in the source tree (scenarios/), which the build records. Every subcommand
// that reads one finds it through here, so `mlacheck scenarios` works from /tmp as `run` does.
#include <string>

namespace mlacheck {

// `option` when given (std::invalid_argument when it does not exist); otherwise
// scenarios/upstream.csv of the working directory, else of the source tree this build came from;
// "" when neither exists.
std::string scenario_table_path(const std::string& option);

// The same for scenarios/known_bugs.csv.
std::string known_bug_table_path(const std::string& option);

}  // namespace mlacheck
