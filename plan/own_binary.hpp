#pragma once
// The file of the executable or shared library this code was linked into: the mlacheck tool, or
// libmlacheck_capi.so loaded into a Python process. Installed data is found relative to it.
#include <filesystem>

namespace mlacheck {

// Its absolute path; empty when it cannot be told (no /proc).
std::filesystem::path own_binary_path();

}  // namespace mlacheck
