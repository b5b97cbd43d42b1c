#include "reports/report_folder.hpp"

#include <filesystem>

#include "reports/csv_reader.hpp"
#include "reports/junit_writer.hpp"
#include "reports/report_error.hpp"

namespace mlacheck {

const std::string& ReportFolder::checked(const std::string& dir) {
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (!std::filesystem::exists(status)) throw ReportError("output folder " + dir + " does not exist");
  if (!std::filesystem::is_directory(status)) throw ReportError("output folder " + dir + " is not a folder");
  return dir;
}

namespace {

std::vector<CaseResult> rows_to_resume(const std::string& dir, bool resume) {
  if (!resume) return {};
  const std::string csv = (std::filesystem::path(dir) / ReportFolder::kCsv).string();
  if (!std::filesystem::exists(csv)) throw ReportError("--resume: " + csv + " does not exist; nothing to resume");
  return recover_csv_report(csv).rows;
}

}  // namespace

ReportFolder::ReportFolder(const std::string& dir, bool resume)
    : dir_(checked(dir)),
      resumed_(rows_to_resume(dir_, resume)),
      csv_((std::filesystem::path(dir_) / kCsv).string(),
           resume ? CsvReportWriter::Mode::append : CsvReportWriter::Mode::create) {}

std::string ReportFolder::file(const char* name) const { return (std::filesystem::path(dir_) / name).string(); }

void ReportFolder::finish(const HtmlReportOptions& options) const {
  const CsvReport report = read_csv_report(csv_.path());
  write_junit_file(file(kJUnit), report.rows);
  write_html_file(file(kHtml), report.rows, options);
}

}  // namespace mlacheck
