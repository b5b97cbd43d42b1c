#include "plan/data_files.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "plan/own_binary.hpp"

namespace mlacheck {

namespace {

std::string find_table(const std::string& option, const std::string& file_name, const char* what,
                       const std::string& source_folder = "scenarios") {
  if (!option.empty()) {
    if (!std::filesystem::exists(option)) throw std::invalid_argument(std::string(what) + " " + option + " does not exist");
    return option;
  }
  // The first of the candidate folders that exists decides: an installed copy whose folder lacks the
  // table is damaged, and must not quietly fall back to some source tree's table.
  std::string tried;
  for (const std::string& candidate : data_table_candidates(file_name, source_folder)) {
    const std::filesystem::path path(candidate);
    if (std::filesystem::is_directory(path.parent_path())) {
      if (std::filesystem::is_regular_file(path)) return candidate;
      throw std::invalid_argument(std::string("no ") + what + ": " + candidate + " is missing from " +
                                  path.parent_path().string() +
                                  " (an installed mlacheck missing it is damaged: reinstall it, or name a table)");
    }
    tried += (tried.empty() ? "" : ", ") + path.parent_path().string();
  }
  throw std::invalid_argument(std::string("no ") + what + ": none of the folders it ships in exists (" + tried +
                              "); name a table");
}

}  // namespace

std::vector<std::string> data_table_candidates(const std::string& file_name, const std::string& source_folder) {
  std::vector<std::string> found;
  const std::filesystem::path binary_dir = own_binary_path().parent_path();
  if (!binary_dir.empty()) {
    found.push_back((binary_dir / "data" / file_name).lexically_normal().string());
    for (const char* relative : {MLACHECK_DATA_FROM_BINDIR, MLACHECK_DATA_FROM_LIBDIR}) {
      const std::string candidate = (binary_dir / relative / file_name).lexically_normal().string();
      if (std::find(found.begin(), found.end(), candidate) == found.end()) found.push_back(candidate);
    }
  }
  found.push_back((std::filesystem::path(MLACHECK_SOURCE_DIR) / source_folder / file_name).string());
  return found;
}

std::string scenario_table_path(const std::string& option) {
  return find_table(option, "upstream.csv", "scenario table");
}

std::string known_bug_table_path(const std::string& option) {
  return find_table(option, "known_bugs.csv", "known-bug table");
}

std::string tier_file_path(const std::string& file_name) {
  return find_table("", file_name, "tier plan file", "plan/tiers");
}

FactorTableFiles production_factor_tables(const std::string& option) {
  FactorTableFiles files;
  files.factors = find_table(option, "production_factors.csv", "production factor table", "plan");
  // The impossible combinations name the factor table's values: they travel beside it.
  files.impossible = (std::filesystem::path(files.factors).parent_path() / "impossible_combinations.csv").string();
  if (!std::filesystem::is_regular_file(files.impossible)) {
    throw std::invalid_argument("no impossible-combination table: " + files.impossible +
                                " must lie beside the production factor table " + files.factors);
  }
  return files;
}

}  // namespace mlacheck
