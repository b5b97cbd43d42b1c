#pragma once
// `mlacheck diff base.csv new.csv [--factor F]`: accuracy regressions between two runs' reports
// (state changes, error growth beyond F, default 2). Exit status 1 when any case regressed, 0
// otherwise; a missing or damaged report is an error (exit status 2, file:line on stderr).
#include <CLI/CLI.hpp>

#include <string>

namespace mlacheck::cli {

struct DiffOptions {
  std::string base;
  std::string now;
  double factor = 2.0;
};

void add_diff_command(CLI::App& app, DiffOptions& options);
int run_diff(const DiffOptions& options);

}  // namespace mlacheck::cli
