#pragma once
// Small pieces shared by the descriptors' validation and repro parsing.
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"
#include "core/repro_format.hpp"

namespace mlacheck {

// Names travel in repro strings, CSV cells, JUnit names and file names.
bool valid_name(std::string_view name);
// [0, v0, v0+v1, ...], size v.size() + 1.
std::vector<int> prefix_sums(const std::vector<int>& v);
DType take_dtype(repro::Reader& r, std::string_view key, DType fallback);
FillMode take_fill_mode(repro::Reader& r, FillMode fallback);
bool take_bool(repro::Reader& r, std::string_view key, bool fallback);

}  // namespace mlacheck
