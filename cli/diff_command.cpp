#include "cli/diff_command.hpp"

#include <cstdio>

#include "cli/option_checks.hpp"
#include "reports/csv_reader.hpp"
#include "reports/report_diff.hpp"

namespace mlacheck::cli {

void add_diff_command(CLI::App& app, DiffOptions& options) {
  CLI::App* cmd = app.add_subcommand("diff", "List accuracy regressions of a report against a base report");
  cmd->add_option("base", options.base, "The base report.csv (e.g. the last run of the main branch)")->required();
  cmd->add_option("new", options.now, "The report.csv to check")->required();
  cmd->add_option("--factor", options.factor, "Error growth beyond this factor is a regression")
      ->capture_default_str()
      ->check(finite_number(1.0, 1e12));
}

int run_diff(const DiffOptions& options) {
  // Both are read before anything is printed, so a damaged report never yields a partial listing.
  const CsvReport base = read_csv_report(options.base);
  const CsvReport now = read_csv_report(options.now);
  const ReportDiff diff = diff_reports(base.rows, now.rows, options.factor);
  std::fputs(format_diff(diff, options.base, options.now).c_str(), stdout);
  return diff.regressed_cases() > 0 ? 1 : 0;
}

}  // namespace mlacheck::cli
