#pragma once
// `mlacheck scenarios --sensitivity`: the sensitivity matrix on the GPU (cli/sensitivity_run.hpp),
// printed as it ends and written to the report folder as sensitivity.csv (one line per fault) and
// sensitivity_seeds.csv (one per fault and seed). Exit status 1 when a precision fault is missed
// on any seed, the clean kernels fail a row, or rows are lost, each named by fault and seed on a
// PROBLEM line; 2 for a setup that cannot run (an unknown --fault, a plugin backend, no such GPU);
// without any GPU nothing runs, the output says so, and the status is 0.
#include <string>
#include <vector>

#include "cli/scenarios_command.hpp"
#include "device/faults.hpp"

namespace mlacheck::cli {

// The precision faults --fault names (all of kPrecisionFaults when none); std::invalid_argument
// for a name that is no precision fault.
std::vector<Fault> chosen_precision_faults(const std::vector<std::string>& names);

int run_sensitivity_section(const ScenariosOptions& options);

}  // namespace mlacheck::cli
