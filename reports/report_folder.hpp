#pragma once
// The output folder of `mlacheck run` (mlacheck-report/ or --out DIR). report.csv grows a row at a
// time as cases finish (a killed run keeps every finished row); junit.xml and report.html are
// written at the end from report.csv itself, so the three always agree and the last two can be
// rebuilt from the CSV of any run.
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
  // The fingerprint of the plan the report is of (plan/plan_fingerprint.hpp), one line; beside
  // report.csv rather than in it, so every reader of report.csv reads it as before.
  static constexpr const char* kPlanFingerprint = "plan-fingerprint.txt";

  enum class Mode {
    fresh,    // a new report; refuses a folder that already holds one (a run's results are not
              // overwritten by accident)
    replace,  // a new report over any old one (`mlacheck run --force`)
    resume,   // continue the report there (see resume_rows()); refuses a folder without one,
              // and, given a plan fingerprint, a report of another plan or of no recorded plan
  };

  // Creates `dir` (and its parents) when missing; creates report.csv, or continues it with
  // Mode::resume. A fresh or replaced report removes the old junit.xml and report.html first, so
  // that no file in the folder speaks for another run. A non-empty `plan_fingerprint` is written
  // beside a fresh or replaced report, and must equal the one recorded to resume. Throws
  // ReportError saying what is wrong.
  ReportFolder(const std::string& dir, Mode mode, const std::string& plan_fingerprint = "");
  // With resume: the rows report.csv already held (its torn last row, if any, cut off).
  const std::vector<CaseResult>& resume_rows() const { return resumed_; }
  void append(const CaseResult& row) { csv_.append(row); }
  // Reads report.csv back and writes junit.xml and report.html from its rows.
  void finish(const HtmlReportOptions& options = {}) const;
  std::string file(const char* name) const;

 private:
  static std::string prepared(const std::string& dir, Mode mode, const std::string& plan_fingerprint);
  std::string dir_;
  std::vector<CaseResult> resumed_;
  CsvReportWriter csv_;
};

}  // namespace mlacheck
