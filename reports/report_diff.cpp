#include "reports/report_diff.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "reports/report_columns.hpp"
#include "reports/report_text.hpp"

namespace mlacheck {

namespace {

bool state_regressed(ResultState base, ResultState now) {
  return (base == ResultState::passed && now != ResultState::passed) || (is_failure(now) && !is_failure(base));
}

bool grew(double base, double now, double factor) {
  if (std::isnan(base)) return false;  // nothing to compare against
  return std::isnan(now) || now > factor * base;
}

void compare_errors(const CaseResult& base, const CaseResult& now, double factor, std::vector<ErrorGrowth>& out) {
  const auto b = tensors_by_group(base), n = tensors_by_group(now);
  for (std::size_t g = 0; g < kTensorGroups.size(); ++g) {
    if (b[g] == nullptr || n[g] == nullptr) continue;
    const std::string prefix = column_prefix(kTensorGroups[g]);
    for (auto [metric, old_value, new_value] :
         {std::tuple{"max_abs_err", b[g]->stats.max_abs_err, n[g]->stats.max_abs_err},
          std::tuple{"rms_rel_err", b[g]->stats.rms_rel_err, n[g]->stats.rms_rel_err}}) {
      if (grew(old_value, new_value, factor)) out.push_back({now.id, prefix + metric, old_value, new_value, now.repro});
    }
  }
}

// Three significant digits: enough to judge growth, and free of binary noise (0.009000000000000001).
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string ratio_text(double base, double now) {
  if (base == 0.0 || std::isnan(now)) return "";
  return " (" + short_number(now / base) + "x)";
}

}  // namespace

std::size_t ReportDiff::regressed_cases() const {
  std::set<std::string> ids;
  for (const StateChange& c : state_changes) {
    if (c.regression) ids.insert(c.id);
  }
  for (const ErrorGrowth& g : growths) ids.insert(g.id);
  return ids.size() + only_in_base.size();
}

ReportDiff diff_reports(std::span<const CaseResult> base, std::span<const CaseResult> now, double factor) {
  ReportDiff d;
  d.factor = factor;
  std::unordered_map<std::string, const CaseResult*> base_by_id;
  for (const CaseResult& r : base) base_by_id.emplace(r.id, &r);
  std::set<std::string> seen;
  for (const CaseResult& n : now) {
    const auto it = base_by_id.find(n.id);
    if (it == base_by_id.end()) {
      d.only_in_new.push_back(n.id);
      continue;
    }
    seen.insert(n.id);
    ++d.common;
    const CaseResult& b = *it->second;
    if (b.state != n.state) d.state_changes.push_back({n.id, b.state, n.state, state_regressed(b.state, n.state), n.reason, n.repro});
    compare_errors(b, n, factor, d.growths);
  }
  for (const CaseResult& b : base) {
    if (!seen.count(b.id)) d.only_in_base.push_back(b.id);
  }
  return d;
}

std::string format_diff(const ReportDiff& d, const std::string& base_name, const std::string& new_name) {
  std::string out = "base: " + base_name + "\nnew:  " + new_name + "\nerror growth factor: " + format_number(d.factor) + "\n";
  out += "\nstate changes (" + std::to_string(d.state_changes.size()) + "):\n";
  for (const StateChange& c : d.state_changes) {
    const bool improved = !c.regression && c.now == ResultState::passed;
    out += std::string(c.regression ? "  REGRESSION  " : improved ? "  improved    " : "  changed     ") + c.id + ": " +
           std::string(to_string(c.base)) + " -> " + std::string(to_string(c.now));
    if (!c.reason.empty()) out += " (" + c.reason + ")";
    out += "\n";
    if (c.regression) out += "              repro: " + c.repro + "\n";
  }
  // One block per case: its grown metrics, then its repro.
  std::vector<std::string> grown_ids;
  for (const ErrorGrowth& g : d.growths) {
    if (grown_ids.empty() || grown_ids.back() != g.id) grown_ids.push_back(g.id);
  }
  out += "\nerror growth beyond " + format_number(d.factor) + "x (" + std::to_string(grown_ids.size()) + " cases):\n";
  for (std::size_t i = 0; i < d.growths.size(); ++i) {
    const ErrorGrowth& g = d.growths[i];
    if (i == 0 || d.growths[i - 1].id != g.id) out += "  REGRESSION  " + g.id + "\n";
    out += "              " + g.metric + " " + short_number(g.base) + " -> " + short_number(g.now) +
           ratio_text(g.base, g.now) + "\n";
    if (i + 1 == d.growths.size() || d.growths[i + 1].id != g.id) out += "              repro: " + g.repro + "\n";
  }
  const auto list = [&](const char* what, const std::vector<std::string>& ids, const char* mark) {
    out += std::string("\n") + what + " (" + std::to_string(ids.size()) + "):\n";
    for (const std::string& id : ids) out += mark + id + "\n";
  };
  list("missing from new", d.only_in_base, "  REGRESSION  ");
  list("only in new", d.only_in_new, "  ");
  const std::size_t missing = d.only_in_base.size();
  out += "\n" + std::to_string(d.regressed_cases()) + " regressed cases: " + std::to_string(d.regressed_cases() - missing) +
         " of " + std::to_string(d.common) + " in both reports, " + std::to_string(missing) +
         " missing from the new report\n";
  return out;
}

}  // namespace mlacheck
