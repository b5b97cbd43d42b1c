#include "reports/report_folder.hpp"

#include <filesystem>
#include <fstream>

#include "reports/csv_reader.hpp"
#include "reports/junit_writer.hpp"
#include "reports/report_error.hpp"

namespace mlacheck {

namespace fs = std::filesystem;

namespace {

std::string recorded_fingerprint(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line.size() <= 64 ? line : "";
}

// Resuming keeps the report's rows as this run's: they must be of this plan.
void check_same_plan(const std::string& dir, const std::string& plan_fingerprint) {
  const fs::path file = fs::path(dir) / ReportFolder::kPlanFingerprint;
  const std::string recorded = recorded_fingerprint(file);
  if (recorded.empty()) {
    throw ReportError("--resume: " + file.string() +
                      " is missing or empty, so the report cannot be shown to be of this run's plan (a report "
                      "written before plans were fingerprinted, or not by `mlacheck run`): --force replaces it");
  }
  if (recorded != plan_fingerprint) {
    throw ReportError("--resume: " + (fs::path(dir) / ReportFolder::kCsv).string() + " is the report of another plan (" +
                      recorded + ", this run's is " + plan_fingerprint +
                      "): resume with the options of the run that wrote it (--seed, --scenarios, --case, "
                      "--property-cases), or --force replaces it");
  }
}

void record_fingerprint(const std::string& dir, const std::string& plan_fingerprint) {
  const fs::path file = fs::path(dir) / ReportFolder::kPlanFingerprint;
  std::ofstream out(file, std::ios::trunc);
  out << plan_fingerprint << '\n';
  if (!out.flush()) throw ReportError("cannot write " + file.string());
}

}  // namespace

std::string ReportFolder::prepared(const std::string& dir, Mode mode, const std::string& plan_fingerprint) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (mode == Mode::resume) throw ReportError("--resume: output folder " + dir + " does not exist; nothing to resume");
    fs::create_directories(dir, ec);
    if (ec) throw ReportError("cannot create output folder " + dir + ": " + ec.message());
  }
  if (!fs::is_directory(dir, ec)) throw ReportError("output folder " + dir + " is not a folder");
  const fs::path csv = fs::path(dir) / kCsv;
  if (mode == Mode::resume && !fs::exists(csv, ec)) {
    throw ReportError("--resume: " + csv.string() + " does not exist; nothing to resume");
  }
  if (mode == Mode::fresh && fs::exists(csv, ec)) {
    throw ReportError(csv.string() + " already holds a run's report: --resume finishes that run, --force replaces it");
  }
  if (mode == Mode::resume && !plan_fingerprint.empty()) check_same_plan(dir, plan_fingerprint);
  if (mode != Mode::resume) {
    for (const char* stale : {kJUnit, kHtml, kPlanFingerprint}) {
      fs::remove(fs::path(dir) / stale, ec);
      if (ec) throw ReportError("cannot remove the old " + (fs::path(dir) / stale).string() + ": " + ec.message());
    }
  }
  if (mode != Mode::resume && !plan_fingerprint.empty()) record_fingerprint(dir, plan_fingerprint);
  return dir;
}

namespace {

std::vector<CaseResult> rows_to_resume(const std::string& dir, ReportFolder::Mode mode) {
  if (mode != ReportFolder::Mode::resume) return {};
  return recover_csv_report((fs::path(dir) / ReportFolder::kCsv).string()).rows;
}

}  // namespace

ReportFolder::ReportFolder(const std::string& dir, Mode mode, const std::string& plan_fingerprint)
    : dir_(prepared(dir, mode, plan_fingerprint)),
      resumed_(rows_to_resume(dir_, mode)),
      csv_((fs::path(dir_) / kCsv).string(),
           mode == Mode::resume ? CsvReportWriter::Mode::append : CsvReportWriter::Mode::create) {}

std::string ReportFolder::file(const char* name) const { return (fs::path(dir_) / name).string(); }

void ReportFolder::finish(const HtmlReportOptions& options) const {
  const CsvReport report = read_csv_report(csv_.path());
  write_junit_file(file(kJUnit), report.rows);
  write_html_file(file(kHtml), report.rows, options);
}

}  // namespace mlacheck
