#pragma once
// Groups a row's tokens by rounding bucket in time linear in the tokens.
//
// The oracle's P statistics (MlaErrorScales::p_bucketed) treat the tokens whose weights round to
// one value of bf16 or f16 as one term. Those values are non-negative, and for non-negative values
// a 16-bit code orders as the value does, so the grouping is a stable sort of the tokens by their
// code: equal codes end up adjacent, in the order the tokens came in (token order), exactly what
// sorting by (value, token) gives.
#include <cstdint>
#include <span>
#include <vector>

namespace mlacheck {

// Reused storage, so that sorting row after row allocates nothing once it has grown.
struct CodeSortScratch {
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> buffer;
};

// order receives 0..codes.size()-1 sorted by codes[i], equal codes in ascending i (a stable
// counting sort: one pass over the codes' range when it spans at most max(512, n) values, else
// two 8-bit passes of an LSD radix sort).
void stable_order_by_code(std::span<const std::uint16_t> codes, std::vector<std::uint32_t>& order,
                          CodeSortScratch& scratch);

}  // namespace mlacheck
