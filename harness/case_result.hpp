#pragma once
// One row of a run: everything a report needs about one case, whatever produced it.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/compare.hpp"
#include "core/result.hpp"

namespace mlacheck {

struct CaseResult {
  std::string id;                 // the problem's name, made unique by the caller where needed
  std::string op;                 // "mla_decode" or "kv_gather"
  std::string repro;              // the canonical repro string: replays this case alone
  std::string backend;            // "hip", a plugin's name, or "oracle-plain" for the oracle self-checks
  std::string backend_version;    // the backend's version string ("" for the built-in ones)
  std::string device;             // the GPU's name and arch, "cpu", or "" when none ran
  int device_index = -1;          // the GPU's index in this process's runtime; -1 when none ran
  std::string device_pci_bus_id;  // e.g. "0000:18:00.0"; "" when none ran or for host backends
  std::string path;               // the decode path taken ("split_kv", "persistent"), "gather", "oracle"
  std::string faults;             // switched-on faults, comma-separated; empty for a correct pipeline
  ResultState state = ResultState::passed;
  std::string reason;  // empty when PASSED
  std::vector<ComparedTensor> tensors;
  std::string canaries = "n/a";  // "ok", "broken: <buffer>(<side>)...", or "n/a" when nothing ran
  // Issue 28 item 3: the smallest case that still fails the same way, when this failing case was
  // shrunk (harness/case_shrink.hpp); "" when it was not.
  std::string shrunk_repro;
  int num_splits = 0;
  double reference_ms = 0.0;
  double device_ms = 0.0;
  double wall_ms = 0.0;
  // Not reported: the GPU context is unusable after this case (a sticky fault), so the process
  // that ran it must not run another (it stops, and the case isolation starts a fresh one).
  bool device_lost = false;
  // Not reported: admission found too little free memory for this case (Backend::lacks_memory), so
  // it stays SKIPPED whatever its origin (plan/case_settle.hpp).
  bool skipped_for_memory = false;
};

// How much of its rms bound the row's worst tensor used: rms_rel_err / tol_rms (0 when nothing
// was compared, +inf for any error under a zero bound). Inline: reports/ uses it without linking
// the harness.
inline double bound_used(const CaseResult& row) {
  double worst = 0.0;
  for (const ComparedTensor& t : row.tensors) {
    const double err = t.stats.rms_rel_err;
    const double used = err == 0.0 ? 0.0 : t.tol.rms > 0.0 ? err / t.tol.rms : std::numeric_limits<double>::infinity();
    worst = std::max(worst, used);
  }
  return worst;
}

}  // namespace mlacheck
