#pragma once
// `mlacheck merge --out merged.csv in1.csv in2.csv ...`: the shard reports of one run become one
// report. The output is named only with --out and may not be one of the inputs (a mistyped
// argument order must never overwrite a shard's report), nor an existing file unless --force. A case id in two inputs, a missing or
// damaged input, or an output that is an input is an error (exit status 2) that leaves every file
// untouched.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mlacheck::cli {

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;  // --force: replace an existing --out file
};

void add_merge_command(CLI::App& app, MergeOptions& options);
int run_merge(const MergeOptions& options);

// Throws std::invalid_argument when `out` names the same file as one of `inputs` (by path, or as
// the same file through another path or a link).
void check_output_is_no_input(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace mlacheck::cli
