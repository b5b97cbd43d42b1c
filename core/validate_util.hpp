#pragma once
// Small pieces shared by the descriptors' validation and repro parsing.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"
#include "core/repro_format.hpp"

namespace mlacheck {

// Throws InvalidProblem for operation `op` naming the field, its value and what is wrong.
[[noreturn]] void fail_field(std::string_view op, std::string_view field, const std::string& value, std::string reason);
inline void require_field(bool ok, std::string_view op, std::string_view field, std::int64_t value, std::string reason) {
  if (!ok) fail_field(op, field, std::to_string(value), std::move(reason));
}

// Paged-cache arithmetic shared by every descriptor with kv_lens and block_size.
template <class Problem>
int blocks_of_request(const Problem& p, int request) {
  return (p.kv_lens[static_cast<std::size_t>(request)] + p.block_size - 1) / p.block_size;
}
template <class Problem>
int total_blocks(const Problem& p) {
  int n = 0;
  for (std::size_t r = 0; r < p.kv_lens.size(); ++r) n += blocks_of_request(p, static_cast<int>(r));
  return n;
}
template <class Problem>
int largest_blocks(const Problem& p) {
  int n = 0;
  for (std::size_t r = 0; r < p.kv_lens.size(); ++r) n = std::max(n, blocks_of_request(p, static_cast<int>(r)));
  return n;
}

// Names travel in repro strings, CSV cells, JUnit names and file names.
bool valid_name(std::string_view name);
// [0, v0, v0+v1, ...], size v.size() + 1.
std::vector<int> prefix_sums(const std::vector<int>& v);
DType take_dtype(repro::Reader& r, std::string_view key, DType fallback);
FillMode take_fill_mode(repro::Reader& r, FillMode fallback);
bool take_bool(repro::Reader& r, std::string_view key, bool fallback);

}  // namespace mlacheck
