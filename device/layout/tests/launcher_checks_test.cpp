// The launchers' argument checks and head maps, host only: a bad call is refused with a message
// that names the argument before anything reaches a GPU, so these run without one.
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "device/layout/head_padding.hpp"
#include "device/layout/kv_gather.hpp"
#include "device/layout/page_indices.hpp"
#include "device/layout/tests/gather_cases.hpp"

namespace mlacheck::layout::test {
namespace {

// Stand-ins for device pointers: the checks read pointer values only.
alignas(256) std::byte g_memory[256];
void* const kAligned = g_memory;

void expect_refused(const std::function<void()>& call, const std::string& argument) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected std::invalid_argument naming '" << argument << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(argument), std::string::npos) << e.what();
  }
}

MlaDecodeProblem decode_problem() {
  MlaDecodeProblem p;
  p.total_heads = 8;
  p.kv_lens = {40, 7};
  p.q_lens = {1, 2};
  p.block_size = 16;
  return with_defaults(p);
}

PageIndexBuffers page_buffers(const MlaDecodeProblem& p) {
  auto* ints = static_cast<std::int32_t*>(kAligned);
  return {ints, max_blocks_per_request(p), ints, ints, ints};
}

TEST(ExpandPageIndicesChecks, AcceptsACompleteCall) {
  const MlaDecodeProblem p = decode_problem();
  EXPECT_NO_THROW(check_expand_page_indices(p, page_buffers(p)));
}

TEST(ExpandPageIndicesChecks, NamesEachMissingBuffer) {
  const MlaDecodeProblem p = decode_problem();
  for (const char* name : {"block_table", "kv_lens", "kv_indptr", "kv_indices"}) {
    PageIndexBuffers b = page_buffers(p);
    const std::string n = name;
    if (n == "block_table") b.block_table = nullptr;
    if (n == "kv_lens") b.kv_lens = nullptr;
    if (n == "kv_indptr") b.kv_indptr = nullptr;
    if (n == "kv_indices") b.kv_indices = nullptr;
    expect_refused([&] { check_expand_page_indices(p, b); }, n + " is null");
  }
}

TEST(ExpandPageIndicesChecks, RefusesATableRowShorterThanTheLongestRequest) {
  const MlaDecodeProblem p = decode_problem();  // 40 tokens in blocks of 16: 3 entries
  PageIndexBuffers b = page_buffers(p);
  b.block_table_stride = 2;
  expect_refused([&] { check_expand_page_indices(p, b); }, "block_table_stride");
}

void expect_invalid_field(const std::function<void()>& call, const std::string& field) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected InvalidProblem for field '" << field << "'";
  } catch (const InvalidProblem& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(ExpandPageIndicesChecks, RefusesAnInvalidProblemByField) {
  MlaDecodeProblem p = decode_problem();
  p.block_size = 0;
  expect_invalid_field([&] { check_expand_page_indices(p, page_buffers(decode_problem())); }, "bs");
}

TEST(LengthsToIndptrChecks, RefusesNegativeCountsAndMissingBuffers) {
  auto* ints = static_cast<std::int32_t*>(kAligned);
  expect_refused([&] { check_lengths_to_indptr(ints, -1, ints); }, "count");
  expect_refused([&] { check_lengths_to_indptr(nullptr, 3, ints); }, "lengths is null");
  expect_refused([&] { check_lengths_to_indptr(ints, 3, nullptr); }, "indptr is null");
  expect_refused([&] { check_lengths_to_indptr(ints, 3, ints, 0); }, "unit");
  EXPECT_NO_THROW(check_lengths_to_indptr(nullptr, 0, ints));  // nothing to read
}

KvGatherBuffers gather_buffers(const KvGatherProblem& p) {
  auto* ints = static_cast<std::int32_t*>(kAligned);
  return {kAligned, ints, max_blocks_per_request(p), ints, kAligned, kAligned};
}

TEST(KvGatherChecks, NamesEachMissingBuffer) {
  const KvGatherProblem p = gather_problem(GatherCase{});
  EXPECT_NO_THROW(check_kv_gather(p, gather_buffers(p)));
  for (const char* name : {"cache", "block_table", "cu_seq_lens", "k_out", "v_out"}) {
    KvGatherBuffers b = gather_buffers(p);
    const std::string n = name;
    if (n == "cache") b.cache = nullptr;
    if (n == "block_table") b.block_table = nullptr;
    if (n == "cu_seq_lens") b.cu_seq_lens = nullptr;
    if (n == "k_out") b.k_out = nullptr;
    if (n == "v_out") b.v_out = nullptr;
    expect_refused([&] { check_kv_gather(p, b); }, n + " is null");
  }
}

TEST(KvGatherChecks, RefusesPointersNotAlignedToTheirElements) {
  const KvGatherProblem p = gather_problem(GatherCase{});  // bf16
  std::byte* odd = g_memory + 1;
  KvGatherBuffers b = gather_buffers(p);
  b.cache = odd;
  expect_refused([&] { check_kv_gather(p, b); }, "cache is not aligned");
  b = gather_buffers(p);
  b.v_out = odd;
  expect_refused([&] { check_kv_gather(p, b); }, "v_out is not aligned");
}

TEST(KvGatherChecks, RefusesATableRowShorterThanTheLongestRequest) {
  const KvGatherProblem p = gather_problem(GatherCase{});
  KvGatherBuffers b = gather_buffers(p);
  b.block_table_stride = max_blocks_per_request(p) - 1;
  expect_refused([&] { check_kv_gather(p, b); }, "block_table_stride");
}

TEST(KvGatherChecks, RefusesAnInvalidProblemByField) {
  KvGatherProblem p = gather_problem(GatherCase{});
  p.layout = CacheLayout::shuffle;
  p.block_size = 7;  // SHUFFLE needs a multiple of x = 8
  p.num_blocks = 0;  // re-derived for the new block size
  expect_invalid_field([&] { check_kv_gather(p, gather_buffers(gather_problem(GatherCase{}))); }, "bs");
}

// The closed-form maps the copy kernel uses are core's maps for every head count a rank can
// have (the builders throw std::logic_error otherwise).
TEST(HeadMaps, AgreeWithCoreForEveryHeadCount) {
  for (int h = 1; h <= 256; ++h) {
    MlaDecodeProblem p = decode_problem();
    p.total_heads = h;
    const HeadRowMap pad = pad_heads_map(p);
    const HeadRowMap unpad = unpad_heads_map(p);
    EXPECT_EQ(pad.src_heads, h);
    EXPECT_EQ(pad.dst_heads, padded_heads(p));
    EXPECT_EQ(unpad.src_heads, padded_heads(p));
    EXPECT_EQ(unpad.dst_heads, h);
  }
}

TEST(HeadMaps, RepeatInterleaveAndTileAsUpstream) {
  MlaDecodeProblem p = decode_problem();
  p.total_heads = 4;  // q.repeat_interleave(4): padded heads 0-3 read head 0; o[:, ::4]
  EXPECT_EQ(pad_heads_map(p).source(3), 0);
  EXPECT_EQ(pad_heads_map(p).source(4), 1);
  EXPECT_EQ(unpad_heads_map(p).source(3), 12);
  p.total_heads = 12;  // tiled to 16: padded head 13 reads head 1; o[:, :12]
  EXPECT_EQ(pad_heads_map(p).source(13), 1);
  EXPECT_EQ(unpad_heads_map(p).source(11), 11);
}

TEST(HeadCopyChecks, RefusesMissingOrMisalignedPointers) {
  expect_refused([] { check_head_copy("pad_q_heads", nullptr, "q", kAligned, "q_padded", 2); }, "q is null");
  expect_refused([] { check_head_copy("pad_q_heads", kAligned, "q", nullptr, "q_padded", 2); }, "q_padded is null");
  expect_refused([] { check_head_copy("unpad_lse_heads", kAligned, "lse_padded", g_memory + 2, "lse", 4); },
                 "lse is not aligned");
}

TEST(HeadCopyChecks, CopiesAsWideAsRowsAndPointersAllow) {
  EXPECT_EQ(head_copy_bytes(1152, kAligned, kAligned), 16);     // 576 bf16
  EXPECT_EQ(head_copy_bytes(40, kAligned, kAligned), 8);        // 20 bf16
  EXPECT_EQ(head_copy_bytes(68, kAligned, kAligned), 4);        // 17 f32
  EXPECT_EQ(head_copy_bytes(34, kAligned, kAligned), 2);        // 17 bf16
  EXPECT_EQ(head_copy_bytes(1152, g_memory + 4, kAligned), 4);  // source only 4-byte aligned
}

}  // namespace
}  // namespace mlacheck::layout::test
