#include "plan/own_binary.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace mlacheck {

// /proc/self/maps names the file behind every mapping; the one holding this function's code is
// the binary this code is part of. dladdr() would name the main program only by argv[0], which is
// neither absolute nor always a path (a command found on PATH).
std::filesystem::path own_binary_path() {
  const auto here = reinterpret_cast<std::uintptr_t>(&own_binary_path);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields >> std::ws, path);
    const auto dash = range.find('-');
    if (dash == std::string::npos || path.empty() || path.front() != '/') continue;
    const std::uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (here >= begin && here < end) return std::filesystem::path(path);
  }
  return {};
}

}  // namespace mlacheck
