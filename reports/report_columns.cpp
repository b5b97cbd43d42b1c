#include "reports/report_columns.hpp"

#include <algorithm>
#include <cctype>

#include "reports/report_error.hpp"

namespace mlacheck {

namespace {

std::array<std::string, kReportColumnCount> build_columns() {
  std::array<std::string, kReportColumnCount> out;
  std::size_t i = 0;
  for (std::string_view c : kLeadingColumns) out[i++] = std::string(c);
  for (std::string_view g : kTensorGroups) {
    for (std::string_view m : kTensorMetrics) out[i++] = column_prefix(g) + std::string(m);
  }
  for (std::string_view c : kTrailingColumns) out[i++] = std::string(c);
  for (std::string_view g : kTensorGroups) {
    for (std::string_view m : kAddedTensorMetrics) out[i++] = column_prefix(g) + std::string(m);
  }
  for (std::string_view c : kAddedFinalColumns) out[i++] = std::string(c);
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

std::array<const ComparedTensor*, kTensorGroups.size()> tensors_by_group(const CaseResult& row) {
  std::array<const ComparedTensor*, kTensorGroups.size()> out{};
  for (const ComparedTensor& t : row.tensors) {
    const auto group = std::find(kTensorGroups.begin(), kTensorGroups.end(), base_name(t.name));
    if (group == kTensorGroups.end()) {
      throw ReportError("case '" + row.id + "': tensor '" + t.name + "' has no report columns (O, LSE, K or V)");
    }
    const ComparedTensor*& slot = out[static_cast<std::size_t>(group - kTensorGroups.begin())];
    if (slot == nullptr || shows_worse(t, *slot)) slot = &t;
  }
  return out;
}

}  // namespace mlacheck
