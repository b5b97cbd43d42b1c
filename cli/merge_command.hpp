#pragma once
// `mlacheck merge out.csv in1.csv in2.csv ...`: the shard reports of one run become one report.
// A case id in two inputs, or a missing or damaged input, is an error (exit status 2) and leaves
// out.csv untouched.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mlacheck::cli {

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
};

void add_merge_command(CLI::App& app, MergeOptions& options);
int run_merge(const MergeOptions& options);

}  // namespace mlacheck::cli
