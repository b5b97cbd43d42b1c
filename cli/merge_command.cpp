#include "cli/merge_command.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cli/exit_status.hpp"
#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_merge.hpp"

namespace mlacheck::cli {

namespace fs = std::filesystem;

void add_merge_command(CLI::App& app, MergeOptions& options) {
  CLI::App* cmd = app.add_subcommand("merge", "Combine shard reports into one report.csv");
  cmd->add_option("--out", options.out, "The merged report.csv to write (never one of the inputs)")->required();
  cmd->add_option("inputs", options.inputs, "The shard reports, in order")->required();
  cmd->add_flag("--force", options.force, "Replace an existing --out file (never an input)");
}

namespace {

// The path a name resolves to, whether or not the file exists yet.
fs::path resolved(const std::string& name) {
  std::error_code ec;
  const fs::path normal = fs::absolute(name, ec).lexically_normal();
  const fs::path canonical = fs::weakly_canonical(normal, ec);
  return ec ? normal : canonical;
}

}  // namespace

void check_output_is_no_input(const std::string& out, const std::vector<std::string>& inputs) {
  const fs::path out_path = resolved(out);
  for (const std::string& in : inputs) {
    std::error_code ec;
    const bool same_file = fs::exists(out, ec) && fs::exists(in, ec) && fs::equivalent(out, in, ec);
    if (same_file || resolved(in) == out_path) {
      throw std::invalid_argument("--out " + out + " is also an input (" + in + "); merge never writes over an input");
    }
  }
}

int run_merge(const MergeOptions& options) {
  check_output_is_no_input(options.out, options.inputs);
  std::error_code ec;
  if (!options.force && fs::exists(options.out, ec)) {
    throw std::invalid_argument("--out " + options.out + " already exists: --force replaces it");
  }
  std::vector<CsvReport> shards;
  for (const std::string& path : options.inputs) shards.push_back(read_csv_report(path));
  const std::vector<CaseResult> rows = merge_reports(shards);
  write_csv_report(options.out, rows);
  std::printf("merged %zu cases from %zu reports into %s\n", rows.size(), shards.size(), options.out.c_str());
  return kExitOk;
}

}  // namespace mlacheck::cli
