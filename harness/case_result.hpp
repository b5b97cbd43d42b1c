#pragma once
// One row of a run: everything a report needs about one case, whatever produced it.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "core/disposition.hpp"
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
  std::string reason;  // empty when PASSED; human text only: nothing reads a kind back out of it
  // The typed disposition (core/disposition.hpp): set by whoever sets the state, settled by
  // plan/case_settle.hpp; none where the state needs no kind.
  SkipReason skip_reason = SkipReason::none;  // SKIPPED: why it was not checked
  ErrorKind error_kind = ErrorKind::none;     // ERRORED (and a KNOWN_BUG row that was): what made it
  FailKind fail_kind = FailKind::none;        // FAILED (and a KNOWN_BUG row that was): why
  std::vector<ComparedTensor> tensors;
  std::string canaries = "n/a";  // "ok", "broken: <buffer>(<side>)...", or "n/a" when nothing ran
  // Issue 28 item 3: the smallest case that still fails the same way, when this failing case was
  // shrunk (harness/case_shrink.hpp); "" when it was not.
  std::string shrunk_repro;
  int num_splits = 0;
  double reference_ms = 0.0;
  double device_ms = 0.0;
  double wall_ms = 0.0;
};

// The row's state and kinds in one step, so no producer sets one without the other.
inline void set_skipped(CaseResult& row, SkipReason why, std::string reason) {
  row.state = ResultState::skipped;
  row.skip_reason = why;
  row.reason = std::move(reason);
}
inline void set_errored(CaseResult& row, ErrorKind kind, std::string reason) {
  row.state = ResultState::errored;
  row.error_kind = kind;
  row.reason = std::move(reason);
}

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

// How the row shows a fault (core/disposition.hpp's catch_kinds), from its typed fields: a guard
// for broken canaries or unwritten elements, a comparison for a tensor with mismatches, NaN/Inf or
// an rms error over its bound. Inline: reports/ writes it without linking the harness.
inline bool shows_wrong_numbers(const ComparedTensor& t) {
  return t.stats.mismatches > 0 || t.stats.nonfinite > 0 || t.stats.rms_rel_err > t.tol.rms;
}
// The canaries column is "broken: <buffer>(<side>)..." exactly when a guard was overwritten.
inline bool canaries_broken(const CaseResult& row) { return row.canaries.starts_with("broken"); }
inline CatchKinds caught_by(const CaseResult& row) {
  bool guard = canaries_broken(row), wrong = false;
  for (const ComparedTensor& t : row.tensors) {
    guard = guard || t.stats.unwritten > 0;
    wrong = wrong || shows_wrong_numbers(t);
  }
  return catch_kinds(row.state, row.error_kind, row.fail_kind, guard, wrong);
}

}  // namespace mlacheck
