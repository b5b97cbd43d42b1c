#include "cli/merge_command.hpp"

#include <cstdio>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_merge.hpp"

namespace mlacheck::cli {

void add_merge_command(CLI::App& app, MergeOptions& options) {
  CLI::App* cmd = app.add_subcommand("merge", "Combine shard reports into one report.csv");
  cmd->add_option("out", options.out, "The merged report.csv to write")->required();
  cmd->add_option("inputs", options.inputs, "The shard reports, in order")->required();
}

int run_merge(const MergeOptions& options) {
  std::vector<CsvReport> shards;
  for (const std::string& path : options.inputs) shards.push_back(read_csv_report(path));
  const std::vector<CaseResult> rows = merge_reports(shards);
  write_csv_report(options.out, rows);
  std::printf("merged %zu cases from %zu reports into %s\n", rows.size(), shards.size(), options.out.c_str());
  return 0;
}

}  // namespace mlacheck::cli
