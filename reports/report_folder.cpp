#include "reports/report_folder.hpp"

#include <filesystem>

#include "reports/csv_reader.hpp"
#include "reports/junit_writer.hpp"
#include "reports/report_error.hpp"

namespace mlacheck {

namespace fs = std::filesystem;

std::string ReportFolder::prepared(const std::string& dir, Mode mode) {
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
  if (mode != Mode::resume) {
    for (const char* stale : {kJUnit, kHtml}) {
      fs::remove(fs::path(dir) / stale, ec);
      if (ec) throw ReportError("cannot remove the old " + (fs::path(dir) / stale).string() + ": " + ec.message());
    }
  }
  return dir;
}

namespace {

std::vector<CaseResult> rows_to_resume(const std::string& dir, ReportFolder::Mode mode) {
  if (mode != ReportFolder::Mode::resume) return {};
  return recover_csv_report((fs::path(dir) / ReportFolder::kCsv).string()).rows;
}

}  // namespace

ReportFolder::ReportFolder(const std::string& dir, Mode mode)
    : dir_(prepared(dir, mode)),
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
