#pragma once
// The output folder of `mlacheck run --out DIR`. report.csv grows a row at a time as cases
// finish (a killed run keeps every finished row); junit.xml and report.html are written at the
// end from report.csv itself, so the three always agree and the last two can be rebuilt from
// the CSV of any run.
#include <string>
#include <vector>

#include "harness/case_result.hpp"
#include "reports/csv_writer.hpp"
#include "reports/html_report.hpp"

namespace mlacheck {

class ReportFolder {
 public:
  static constexpr const char* kCsv = "report.csv";
  static constexpr const char* kJUnit = "junit.xml";
  static constexpr const char* kHtml = "report.html";

  // `dir` must be an existing folder (a typo should not scatter reports); creates report.csv, or
  // with `resume` continues the one there (see resume_rows()). Throws ReportError saying what is
  // wrong with either.
  explicit ReportFolder(const std::string& dir, bool resume = false);
  // With resume: the rows report.csv already held (its torn last row, if any, cut off).
  const std::vector<CaseResult>& resume_rows() const { return resumed_; }
  void append(const CaseResult& row) { csv_.append(row); }
  // Reads report.csv back and writes junit.xml and report.html from its rows.
  void finish(const HtmlReportOptions& options = {}) const;
  std::string file(const char* name) const;

 private:
  static const std::string& checked(const std::string& dir);
  std::string dir_;
  std::vector<CaseResult> resumed_;
  CsvReportWriter csv_;
};

}  // namespace mlacheck
