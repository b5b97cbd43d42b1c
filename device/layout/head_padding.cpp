#include "device/layout/head_padding.hpp"

#include <stdexcept>
#include <string>

#include "device/layout/argument_checks.hpp"

namespace mlacheck::layout {

namespace {

int repeat_of(const MlaDecodeProblem& p) {
  return head_pad_mode(p) == HeadPadMode::repeat_interleave ? padded_heads(p) / heads(p) : 1;
}

void require_matches_core(const HeadRowMap& map, const MlaDecodeProblem& p, bool pad) {
  for (int j = 0; j < map.dst_heads; ++j) {
    const int expected = pad ? padded_head_source(p, j) : unpadded_head_location(p, j);
    if (map.source(j) != expected) {
      throw std::logic_error(std::string(pad ? "pad" : "unpad") + "_heads_map: head " + std::to_string(j) +
                             " maps to " + std::to_string(map.source(j)) + ", core's map says " +
                             std::to_string(expected) + " (heads=" + std::to_string(heads(p)) + ")");
    }
  }
}

}  // namespace

HeadRowMap pad_heads_map(const MlaDecodeProblem& p) {
  validate(with_defaults(p));
  const HeadRowMap map{heads(p), padded_heads(p), repeat_of(p), 1, heads(p)};
  require_matches_core(map, p, true);
  return map;
}

HeadRowMap unpad_heads_map(const MlaDecodeProblem& p) {
  validate(with_defaults(p));
  const HeadRowMap map{padded_heads(p), heads(p), 1, repeat_of(p), padded_heads(p)};
  require_matches_core(map, p, false);
  return map;
}

int head_copy_bytes(std::size_t row_bytes, const void* src, const void* dst) {
  int bytes = 16;
  while (bytes > 1 &&
         (row_bytes % static_cast<std::size_t>(bytes) != 0 || !is_aligned(src, bytes) || !is_aligned(dst, bytes))) {
    bytes /= 2;
  }
  return bytes;
}

void check_head_copy(std::string_view launcher, const void* src, std::string_view src_name, const void* dst,
                     std::string_view dst_name, std::size_t element_bytes) {
  require_pointer(launcher, src_name, src);
  require_pointer(launcher, dst_name, dst);
  require_aligned(launcher, src_name, src, element_bytes);
  require_aligned(launcher, dst_name, dst, element_bytes);
}

}  // namespace mlacheck::layout
