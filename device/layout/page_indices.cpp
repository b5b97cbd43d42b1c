#include "device/layout/page_indices.hpp"

#include <string>

#include "device/layout/argument_checks.hpp"

namespace mlacheck::layout {

void check_expand_page_indices(const MlaDecodeProblem& p, const PageIndexBuffers& buffers) {
  constexpr std::string_view kLauncher = "expand_page_indices";
  validate(with_defaults(p));
  require_pointer(kLauncher, "block_table", buffers.block_table);
  require_pointer(kLauncher, "kv_lens", buffers.kv_lens);
  require_pointer(kLauncher, "kv_indptr", buffers.kv_indptr);
  require_pointer(kLauncher, "kv_indices", buffers.kv_indices);
  if (buffers.block_table_stride < max_blocks_per_request(p)) {
    fail_argument(kLauncher, "block_table_stride",
                  "= " + std::to_string(buffers.block_table_stride) + " is shorter than the " +
                      std::to_string(max_blocks_per_request(p)) + " blocks the longest request needs");
  }
}

void check_lengths_to_indptr(const std::int32_t* lengths, int count, const std::int32_t* indptr, int unit) {
  constexpr std::string_view kLauncher = "lengths_to_indptr";
  if (count < 0) fail_argument(kLauncher, "count", "= " + std::to_string(count) + " is negative");
  if (unit < 1) fail_argument(kLauncher, "unit", "= " + std::to_string(unit) + " is below 1");
  require_pointer(kLauncher, "indptr", indptr);
  if (count > 0) require_pointer(kLauncher, "lengths", lengths);
}

}  // namespace mlacheck::layout
