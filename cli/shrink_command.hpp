#pragma once
// `mlacheck shrink`: a failing mla_decode case cut down to the smallest case that still fails the
// same way on a backend (issue 28 item 3; harness/case_shrink.hpp, docs/shrinking.md). Each
// candidate runs in a process of its own under the watchdog, as `mlacheck scenarios` runs its
// cases: a candidate that crashes the backend costs that candidate alone (an ERRORED run, which
// is another failure than a wrong result, so it is not kept unless the original crashed too).
// Prints the original, every step and the result with the command that replays it; exit status
// 1 when the case fails (shrunk or not), 0 when it does not fail (the original is kept), 2 for a
// bad repro string, an unusable backend or no device to run it on (cli/exit_status.hpp).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "harness/case_shrink.hpp"

namespace mlacheck::cli {

struct ShrinkCommandOptions {
  std::string case_repro;          // --case: the failing case
  std::string backend = "hip";     // --backend: "hip" or the path of a backend plugin
  mlacheck::ShrinkOptions bounds;  // --max-steps, --max-seconds
  std::optional<int> device;       // --device: the GPU (default 0)
  double timeout_base_s = 120.0;   // --timeout: the watchdog's base limit per candidate
  // --out: a report folder whose one row is the original's, with the shrunk case's repro in the
  // shrunk_repro column; created when missing, refused when it holds a report unless --force.
  std::string out_dir;
  bool force = false;
};

void add_shrink_command(CLI::App& app, ShrinkCommandOptions& options);
int run_shrink(const ShrinkCommandOptions& options);

}  // namespace mlacheck::cli
