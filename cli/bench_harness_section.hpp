#pragma once
// The harness section of `mlacheck bench`: issue 29's targets, each measured in this run and
// printed as a line with its target and met or missed:
//   oracle:  its double-precision rate with the tight tolerance's statistics on the sweep's largest
//            problems (bench/oracle_targets.hpp) against Eigen's dgemm measured in the same run on
//            as many threads;
//   main job: cases per second of `mlacheck run`'s default plan, each case prepared (inputs, oracle)
//            and run through the harness as a run's worker does (run_cases, 4 cases ahead), in this
//            process;
//   property sitting: a real `mlacheck run` of --sitting-cases property cases within a per-case work
//            budget (cli/bench_sitting.hpp), its wall time and rows; the 100,000-case target is
//            judged only on a sitting of that size, never projected.
// The last two targets are a 16-core GPU host's: with a host plugin the figures are this machine's
// and the line says the device part was not measured. A benchmark, never a test threshold.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "device/backend.hpp"

namespace mlacheck::cli {

struct HarnessSectionOptions {
  int main_job_cases = 0;   // --harness-cases N: the default plan's first N cases; 0 for all
  int sitting_cases = 2000;  // --sitting-cases N: property cases of the sitting (a real run)
  double sitting_budget = 1e9;  // --sitting-budget W: their per-case oracle work budget (pre-merge's)
  int oracle_threads = 0;   // --oracle-threads T: threads of the oracle and of dgemm; 0 for the host's
  int oracle_runs = 3;      // --oracle-runs N: alternating timings per problem (median reported)
};

void add_harness_section_options(CLI::App* cmd, HarnessSectionOptions& options);

// `on_device`: the backend runs on a GPU. `quick`: one small oracle problem (a smoke test).
// `backend_spec` and `device` name the backend and GPU for the sitting's `mlacheck run`.
void run_harness_section(Backend* backend, const std::string& unavailable_reason, bool on_device, bool quick,
                         const HarnessSectionOptions& options, const std::string& backend_spec,
                         std::optional<int> device);

}  // namespace mlacheck::cli
