#include "reports/report_columns.hpp"

#include <algorithm>
#include <cctype>

#include "reports/report_error.hpp"

namespace mlacheck {

namespace {

std::array<std::string, kReportColumnCount> build_columns() {
  std::vector<std::string> names = report_columns_for(kTensorGroups);
  std::array<std::string, kReportColumnCount> out;
  std::move(names.begin(), names.end(), out.begin());
  return out;
}

// "O (P rounded)" -> "O": the name up to the first space.
std::string_view base_name(std::string_view tensor_name) { return tensor_name.substr(0, tensor_name.find(' ')); }

bool shows_worse(const ComparedTensor& a, const ComparedTensor& b) {
  const bool a_fails = !within(a.stats, a.tol), b_fails = !within(b.stats, b.tol);
  if (a_fails != b_fails) return a_fails;
  return a.stats.rms_rel_err > b.stats.rms_rel_err;
}

}  // namespace

std::vector<std::string> report_columns_for(std::span<const std::string_view> groups) {
  std::vector<std::string> out;
  for (std::string_view c : kLeadingColumns) out.emplace_back(c);
  for (std::string_view g : groups) {
    for (std::string_view m : kTensorMetrics) out.push_back(column_prefix(g) + std::string(m));
  }
  for (std::string_view c : kTrailingColumns) out.emplace_back(c);
  for (std::string_view g : groups) {
    for (std::string_view m : kAddedTensorMetrics) out.push_back(column_prefix(g) + std::string(m));
  }
  for (std::string_view c : kAddedFinalColumns) out.emplace_back(c);
  return out;
}

const std::array<std::string, kReportColumnCount>& report_columns() {
  static const std::array<std::string, kReportColumnCount> columns = build_columns();
  return columns;
}

std::string column_prefix(std::string_view group) {
  std::string out(group);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out + "_";
}

bool column_added_later(std::string_view column) {
  if (std::find(kAddedColumns.begin(), kAddedColumns.end(), column) != kAddedColumns.end()) return true;
  if (std::find(kAddedFinalColumns.begin(), kAddedFinalColumns.end(), column) != kAddedFinalColumns.end()) return true;
  for (std::string_view g : kTensorGroups) {
    for (std::string_view m : kAddedTensorMetrics) {
      if (column == column_prefix(g) + std::string(m)) return true;
    }
  }
  return false;
}

void tensors_by_group(const CaseResult& row, std::span<const std::string_view> groups,
                      std::span<const ComparedTensor*> out) {
  std::fill(out.begin(), out.end(), nullptr);
  for (const ComparedTensor& t : row.tensors) {
    const auto group = std::find(groups.begin(), groups.end(), base_name(t.name));
    if (group == groups.end()) {
      std::string names;
      for (std::string_view g : groups) names += (names.empty() ? "" : ", ") + std::string(g);
      throw ReportError("case '" + row.id + "': tensor '" + t.name + "' has no report columns (" + names + ")");
    }
    const ComparedTensor*& slot = out[static_cast<std::size_t>(group - groups.begin())];
    if (slot == nullptr || shows_worse(t, *slot)) slot = &t;
  }
}

std::array<const ComparedTensor*, kTensorGroups.size()> tensors_by_group(const CaseResult& row) {
  std::array<const ComparedTensor*, kTensorGroups.size()> out{};
  tensors_by_group(row, kTensorGroups, out);
  return out;
}

}  // namespace mlacheck
