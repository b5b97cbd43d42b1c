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

ReportFolder::ReportFolder(const std::string& dir)
    : dir_(checked(dir)), csv_((std::filesystem::path(dir_) / kCsv).string()) {}

std::string ReportFolder::file(const char* name) const { return (std::filesystem::path(dir_) / name).string(); }

void ReportFolder::finish(const HtmlReportOptions& options) const {
  const CsvReport report = read_csv_report(csv_.path());
  write_junit_file(file(kJUnit), report.rows);
  write_html_file(file(kHtml), report.rows, options);
}

}  // namespace mlacheck
