#pragma once
// Bitwise comparison of a device output with its host twin's, reporting how many elements differ
// and the first one by position (e.g. "token 3 head 1 channel 17").
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <string>

namespace mlacheck::layout::test {

// `where(index)` names an element. A still-poisoned element shows as the poison pattern
// (core/poison_codes.hpp; 0x7fffffff for indices): the kernel never wrote it.
template <class T, class Where>
testing::AssertionResult bitwise_equal(std::span<const T> expected, std::span<const T> actual, Where where) {
  if (expected.size() != actual.size()) {
    return testing::AssertionFailure() << "sizes differ: expected " << expected.size() << ", got " << actual.size();
  }
  std::size_t differing = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i] && differing++ == 0) first = i;
  }
  if (differing == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << differing << " of " << expected.size() << " elements differ; first at "
                                     << where(first) << ": expected 0x" << std::hex << expected[first] << ", got 0x"
                                     << actual[first] << std::dec;
}

}  // namespace mlacheck::layout::test
