#include "reference/bucket_grouping.hpp"

#include <algorithm>

namespace mlacheck {

namespace {

// Counts of each digit, turned into each digit's first slot.
template <class Codes, class Digit>
void slots(const Codes& keys, std::size_t bins, Digit digit, std::vector<std::uint32_t>& counts) {
  counts.assign(bins + 1, 0);
  for (std::uint16_t c : keys) ++counts[digit(c) + 1];
  for (std::size_t b = 1; b <= bins; ++b) counts[b] += counts[b - 1];
}

// The tokens in their own order placed by digit(code) into dst: a stable counting pass.
template <class Digit>
void first_pass(std::span<const std::uint16_t> codes, std::span<std::uint32_t> dst, std::size_t bins, Digit digit,
                std::vector<std::uint32_t>& counts) {
  slots(codes, bins, digit, counts);
  for (std::size_t i = 0; i < codes.size(); ++i) dst[counts[digit(codes[i])]++] = static_cast<std::uint32_t>(i);
}

// src (a permutation of the tokens) placed by digit(code) into dst, keeping src's order among equals.
template <class Digit>
void next_pass(std::span<const std::uint16_t> codes, std::span<const std::uint32_t> src, std::span<std::uint32_t> dst,
               std::size_t bins, Digit digit, std::vector<std::uint32_t>& counts) {
  slots(codes, bins, digit, counts);
  for (std::uint32_t i : src) dst[counts[digit(codes[i])]++] = i;
}

}  // namespace

void stable_order_by_code(std::span<const std::uint16_t> codes, std::vector<std::uint32_t>& order,
                          CodeSortScratch& scratch) {
  const std::size_t n = codes.size();
  order.resize(n);
  if (n == 0) return;
  const auto [lo_it, hi_it] = std::minmax_element(codes.begin(), codes.end());
  const std::uint32_t lo = *lo_it;
  const std::size_t span = static_cast<std::size_t>(*hi_it - lo) + 1;
  // Softmax weights of a row span few binades, so one pass over the codes' range is the usual case;
  // it is taken where its bins cost no more than the tokens or the two passes' bins.
  constexpr std::size_t kRadixBins = 256;
  if (span <= std::max(2 * kRadixBins, n)) {
    first_pass(
        codes, order, span, [lo](std::uint16_t c) { return std::size_t{c} - lo; }, scratch.counts);
    return;
  }
  // Least significant byte first: the second pass is stable, so ties keep the first pass's order.
  scratch.buffer.resize(n);
  first_pass(
      codes, scratch.buffer, kRadixBins, [](std::uint16_t c) { return std::size_t{c} & 0xFFu; }, scratch.counts);
  next_pass(
      codes, scratch.buffer, order, kRadixBins, [](std::uint16_t c) { return std::size_t{c} >> 8; }, scratch.counts);
}

}  // namespace mlacheck
