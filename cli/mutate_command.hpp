#pragma once
// `mlacheck mutate`: the random properties against each fault in turn (fault_search.hpp); per
// fault whether it was caught, after how many cases, and the shrunk counterexample's repro. Exit
// status 1 when a fault survives or the correct pipeline failed a generated case; 2 for a setup
// that cannot run (--device of a GPU that does not exist or cannot be used); without any GPU every
// fault is SKIPPED with the reason, the output says nothing was checked, and the status is 0.
// Every case runs in a process of its own under a watchdog: a hang costs that case.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mlacheck::cli {

struct MutateOptions {
  std::uint64_t seed = 1;           // --seed
  int max_cases = 100;              // --cases: per fault
  std::vector<std::string> faults;  // --fault: these only (default every fault)
  // --max-batch, --max-kv-len: the generators' bounds at their largest size. Larger than the CPU
  // properties' defaults: metadata-unpadded-heads only shows once the planner splits enough
  // requests across the CUs that the partial rows outgrow buffers sized for the unpadded heads,
  // and metadata-sized-for-single-token once q_len rows per partial outgrow one (about 7% of draws
  // on an H100, GeneratorDomain.MutateDrawsTheTriggersOfTheVariantFaults).
  int max_batch = 8;
  int max_kv_len = 2048;
  int device = 0;                   // --device
  double timeout_base_s = 120.0;    // --timeout: the watchdog's base limit per case
  // --past-4gib-percent: cases whose blocks lie past 4 GiB of pool (a device pool over 4 GiB
  // each). Fault cache-offset-32bit shows only there; 5% finds it within the default 100 cases
  // (a miss is 0.95^100, about 0.6%) without making every other fault's hunt memory-heavy.
  int past_4gib_percent = 5;
};

void add_mutate_command(CLI::App& app, MutateOptions& options);
int run_mutate(const MutateOptions& options);

}  // namespace mlacheck::cli
