#pragma once
// report.html: one self-contained page (inline style and SVG, no script, no network) for a
// person reading a run: the summary by state, the worst cases with their repro strings, tables
// by category, plots of error against kv_len and of the error distribution, coverage of the
// problem space and of the production factors, the kill matrix when there is one, and every case.
#include <iosfwd>
#include <optional>
#include <span>
#include <string>

#include "core/support_space.hpp"
#include "harness/case_result.hpp"
#include "reports/factor_coverage_grid.hpp"
#include "reports/kill_matrix_grid.hpp"

namespace mlacheck {

struct HtmlReportOptions {
  std::string title = "mlacheck report";
  std::optional<KillMatrixGrid> kill_matrix;  // its section appears only when given
  // The backend's declared support space (core/support_space.hpp): its section says what of the
  // sweep's problem space the space excludes. Appears only when given.
  std::optional<SupportSpace> space;
  std::optional<FactorCoverageGrid> factor_coverage;  // appears only when given
};

// Section ids, for links and tests: summary, worst-cases, categories, error-vs-kv-len,
// error-histogram, coverage, factor-coverage, backend-space, kill-matrix, all-cases.
void write_html(std::ostream& out, std::span<const CaseResult> rows, const HtmlReportOptions& options);
// Writes the file; throws ReportError when it cannot.
void write_html_file(const std::string& path, std::span<const CaseResult> rows, const HtmlReportOptions& options);

}  // namespace mlacheck
