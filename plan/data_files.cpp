#include "plan/data_files.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "plan/own_binary.hpp"

namespace mlacheck {

namespace {

std::string find_table(const std::string& option, const std::string& file_name, const char* what) {
  if (!option.empty()) {
    if (!std::filesystem::exists(option)) throw std::invalid_argument(std::string(what) + " " + option + " does not exist");
    return option;
  }
  // The first of the candidate folders that exists decides: an installed copy whose folder lacks the
  // table is damaged, and must not quietly fall back to some source tree's table.
  std::string tried;
  for (const std::string& candidate : data_table_candidates(file_name)) {
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

std::vector<std::string> data_table_candidates(const std::string& file_name) {
  std::vector<std::string> found;
  const std::filesystem::path binary_dir = own_binary_path().parent_path();
  if (!binary_dir.empty()) {
    found.push_back((binary_dir / "data" / file_name).lexically_normal().string());
    for (const char* relative : {MLACHECK_DATA_FROM_BINDIR, MLACHECK_DATA_FROM_LIBDIR}) {
      const std::string candidate = (binary_dir / relative / file_name).lexically_normal().string();
      if (std::find(found.begin(), found.end(), candidate) == found.end()) found.push_back(candidate);
    }
  }
  found.push_back((std::filesystem::path(MLACHECK_SOURCE_DIR) / "scenarios" / file_name).string());
  return found;
}

std::string scenario_table_path(const std::string& option) {
  return find_table(option, "upstream.csv", "scenario table");
}

std::string known_bug_table_path(const std::string& option) {
  return find_table(option, "known_bugs.csv", "known-bug table");
}

}  // namespace mlacheck
