// Elements of mla_decode's O and LSE and of kv_gather's K and V named by their coordinates
// (core/element_names.hpp), for reasons that say where the kernel went wrong.
#include "core/element_names.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace mlacheck {
namespace {

MlaDecodeProblem three_requests() {
  MlaDecodeProblem p;
  p.total_heads = 32;
  p.tp = 2;  // 16 heads on this rank
  p.kv_lora_rank = 512;
  p.kv_lens = {40, 0, 9};
  p.q_lens = {2, 1, 3};  // rows 0-1, 2, 3-5
  return p;
}

std::size_t o_index(std::size_t row, std::size_t head, std::size_t channel) { return (row * 16 + head) * 512 + channel; }

TEST(ElementNames, NameOElementsByRequestQueryTokenHeadAndChannel) {
  const ElementNamer name = mla_o_element_names(three_requests());
  EXPECT_EQ(name(0), "request 0, query token 0, head 0, channel 0");
  EXPECT_EQ(name(o_index(1, 15, 511)), "request 0, query token 1, head 15, channel 511");
  EXPECT_EQ(name(o_index(2, 3, 130)), "request 1, query token 0, head 3, channel 130");
  EXPECT_EQ(name(o_index(5, 9, 7)), "request 2, query token 2, head 9, channel 7");
}

TEST(ElementNames, NameLseElementsByRequestQueryTokenAndHead) {
  const ElementNamer name = mla_lse_element_names(three_requests());
  EXPECT_EQ(name(3 * 16 + 4), "request 2, query token 0, head 4");
  EXPECT_EQ(name(6 * 16 - 1), "request 2, query token 2, head 15");
}

TEST(ElementNames, SkipRequestsWithoutRows) {
  KvGatherProblem p;
  p.num_kv_heads = 2;
  p.head_size = 8;
  p.kv_lens = {3, 0, 2};  // token rows 0-2, none, 3-4
  const ElementNamer name = kv_gather_element_names(p);
  EXPECT_EQ(name((2 * 2 + 1) * 8 + 6), "request 0, token 2, head 1, channel 6");
  EXPECT_EQ(name((3 * 2 + 0) * 8 + 0), "request 2, token 0, head 0, channel 0");
}

}  // namespace
}  // namespace mlacheck
