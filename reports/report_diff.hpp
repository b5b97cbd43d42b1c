#pragma once
// `mlacheck diff base.csv new.csv`: what changed between two runs, per case id. A regression is a
// state that got worse (a PASSED case that no longer passes, or any case that newly FAILED or
// ERRORED), a headline error that grew beyond a factor, or a case of the base missing from the
// new report (a case that stopped running is not a case that passes: a crashed shard, a dropped
// sweep entry or a renamed id must not read as green). Cases only in the new report are listed.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/case_result.hpp"

namespace mlacheck {

struct StateChange {
  std::string id;
  ResultState base = ResultState::passed;
  ResultState now = ResultState::passed;
  bool regression = false;
  std::string reason;  // the new row's reason
  std::string repro;
};

struct ErrorGrowth {
  std::string id;
  std::string metric;  // a report.csv column: o_rms_rel_err, o_max_abs_err, lse_..., k_..., v_...
  double base = 0.0;
  double now = 0.0;
  std::string repro;
};

struct ReportDiff {
  double factor = 2.0;
  std::size_t common = 0;  // ids in both reports
  std::vector<StateChange> state_changes;
  std::vector<ErrorGrowth> growths;  // every one is a regression
  std::vector<std::string> only_in_base;  // every one is a regression: missing from the new report
  std::vector<std::string> only_in_new;
  // Distinct ids with a regressing state change, an error growth, or missing from the new report.
  std::size_t regressed_cases() const;
};

// Compares max_abs_err and rms_rel_err of every tensor group both rows have: growth when the new
// value is NaN (and the old was not) or exceeds factor * old; from an old value of 0, any error
// is growth (bitwise paths and exact fills must stay exact).
ReportDiff diff_reports(std::span<const CaseResult> base, std::span<const CaseResult> now, double factor);

// The human-readable listing, ending in "<n> regressed cases: <k> of <common> in both reports,
// <m> missing from the new report".
std::string format_diff(const ReportDiff& diff, const std::string& base_name, const std::string& new_name);

}  // namespace mlacheck
