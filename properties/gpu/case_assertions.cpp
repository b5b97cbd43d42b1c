#include "properties/gpu/case_assertions.hpp"

#include <algorithm>
#include <cstdio>

#include <rapidcheck.h>

#include "properties/gpu/coverage.hpp"

namespace mlacheck {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::size_t count_set(const std::vector<std::uint8_t>& flags) {
  return static_cast<std::size_t>(std::count_if(flags.begin(), flags.end(), [](std::uint8_t f) { return f != 0; }));
}

}  // namespace

std::string describe_row(const CaseResult& row) {
  std::string out = std::string(to_string(row.state)) + ": " + row.reason + "\n";
  out += "  path " + (row.path.empty() ? "-" : row.path) + ", splits " + std::to_string(row.num_splits) +
         ", canaries " + row.canaries + ", device " + row.device + "\n";
  for (const ComparedTensor& t : row.tensors) {
    const CompareStats& s = t.stats;
    out += "  " + t.name + ": " + std::to_string(s.mismatches) + "/" + std::to_string(s.total) + " outside, " +
           std::to_string(s.nonfinite) + " non-finite, " + std::to_string(s.unwritten) + " unwritten; max abs err " +
           number(s.max_abs_err) + " (worst element " +
           (t.worst_element.empty() ? std::to_string(s.worst_index) : t.worst_element) + "), rms rel err " +
           number(s.rms_rel_err) + "\n    tolerance: " + t.tol.rule + "\n";
  }
  out += "  replay alone: mlacheck run --case \"" + row.repro + "\"";
  return out;
}

void discard_if_refused(const std::string& property, const std::vector<std::string>& buckets,
                        const std::optional<std::string>& why) {
  if (!why) return;
  coverage().refused(property, buckets, *why);
  RC_DISCARD("refused by the backend: " + *why);
}

void require_passed(const CaseResult& row) {
  if (row.state == ResultState::mistrusted) RC_DISCARD("MISTRUSTED: " + row.reason);
  if (row.state != ResultState::passed) RC_FAIL(describe_row(row));
  if (row.canaries != "ok") RC_FAIL("canaries " + row.canaries + " in a PASSED row\n" + describe_row(row));
  for (const ComparedTensor& t : row.tensors) {
    if (t.stats.unwritten != 0) RC_FAIL(t.name + " has unwritten elements in a PASSED row\n" + describe_row(row));
  }
}

void require_clean_run(const MlaDecodeRun& run, const std::string& what) {
  std::string broken;
  for (const BrokenCanary& c : run.diag.broken_canaries) broken += " " + c.buffer + "(" + c.side + ")";
  if (!broken.empty()) RC_FAIL(what + ": guard canary overwritten:" + broken);
  const std::size_t o = count_set(run.o_unwritten);
  const std::size_t lse = count_set(run.lse_unwritten);
  if (o + lse != 0) {
    RC_FAIL(what + ": " + std::to_string(o) + " O and " + std::to_string(lse) + " LSE elements unwritten");
  }
}

}  // namespace mlacheck
