#include "reference/bucket_grouping.hpp"

#include <algorithm>

namespace mlacheck {

namespace {

// One stable counting pass: src ordered by digit(code) into dst.
template <class Digit>
void counting_pass(std::span<const std::uint16_t> codes, std::span<const std::uint32_t> src,
                   std::span<std::uint32_t> dst, std::size_t bins, Digit digit, std::vector<std::uint32_t>& counts) {
  counts.assign(bins + 1, 0);
  for (std::uint32_t i : src) ++counts[digit(codes[i]) + 1];
  for (std::size_t b = 1; b <= bins; ++b) counts[b] += counts[b - 1];
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
  scratch.buffer.resize(n);
  for (std::size_t i = 0; i < n; ++i) scratch.buffer[i] = static_cast<std::uint32_t>(i);
  // Softmax weights of a row span few binades, so one pass over the codes' range is the usual case;
  // it is taken where its bins cost no more than the tokens or the two passes' bins.
  constexpr std::size_t kRadixBins = 256;
  if (span <= std::max(2 * kRadixBins, n)) {
    counting_pass(
        codes, scratch.buffer, order, span, [lo](std::uint16_t c) { return std::size_t{c} - lo; }, scratch.counts);
    return;
  }
  // Least significant byte first: the second pass is stable, so ties keep the first pass's order.
  counting_pass(
      codes, scratch.buffer, order, kRadixBins, [](std::uint16_t c) { return std::size_t{c} & 0xFFu; }, scratch.counts);
  counting_pass(
      codes, order, scratch.buffer, kRadixBins, [](std::uint16_t c) { return std::size_t{c} >> 8; }, scratch.counts);
  order.swap(scratch.buffer);
}

}  // namespace mlacheck
