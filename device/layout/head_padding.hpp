#pragma once
// Head padding on the device: q [tokens, heads, Lk] -> [tokens, padded_heads, Lk] before the
// attention kernels, O [tokens, padded_heads, Lv] -> [tokens, heads, Lv] and LSE
// [tokens, padded_heads] -> [tokens, heads] after them, with core's padded_head_source and
// unpadded_head_location (repeat-interleave below 16 heads that divide 16, tiling otherwise).
// All three are the same row copy; what differs is the head map. Host twin:
// reference/head_padding.hpp. Launchers: launchers.hpp. This header is plain C++.
#include <cstddef>
#include <string_view>

#include "core/dtype_convert.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck::layout {

// Row r, head j of the destination [rows, dst_heads, row] is row r, head source(j) of the source
// [rows, src_heads, row]. Core's two maps share one closed form, so the kernel needs no table:
//   pad:    source(j) = (j / repeat) % heads   (repeat = 16 / heads when repeat-interleaving, else 1)
//   un-pad: source(h) = h * repeat
struct HeadRowMap {
  int src_heads = 0;
  int dst_heads = 0;
  int divide = 1;
  int multiply = 1;
  int modulo = 1;

  MLACHECK_HD int source(int j) const { return j / divide * multiply % modulo; }
};

// Both throw std::logic_error if the closed form ever disagrees with core's map for some head
// (core changed and the kernel did not), InvalidProblem for an invalid p.
HeadRowMap pad_heads_map(const MlaDecodeProblem& p);
HeadRowMap unpad_heads_map(const MlaDecodeProblem& p);

// The widest copy (16, 8, 4, 2 or 1 bytes) that divides a row and both pointers' alignment.
int head_copy_bytes(std::size_t row_bytes, const void* src, const void* dst);

// Throws std::invalid_argument naming a null pointer or one not aligned to its element type.
void check_head_copy(std::string_view launcher, const void* src, std::string_view src_name, const void* dst,
                     std::string_view dst_name, std::size_t element_bytes);

}  // namespace mlacheck::layout
