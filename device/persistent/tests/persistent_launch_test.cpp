// The persistent launcher refuses before launching anything: a partial set of the six scheduling
// buffers names every missing one (UPSTREAM S1: upstream ran silently with one missing), no set
// at all, and shapes the row-group kernels do not take. No GPU work: runs wherever the launcher
// is built.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/persistent/persistent_decode.hpp"
#include "device/planner/planner_error.hpp"

namespace mlacheck::kernels {
namespace {

MlaDecodeProblem problem(int lv) {
  MlaDecodeProblem p;
  p.kv_lora_rank = lv;
  p.kv_lens = {40, 7};
  p.q_lens = {2, 1};
  return with_defaults(p);
}

// Arguments with every pointer set to a distinct non-null address; nothing is dereferenced
// because every case below is refused first.
PersistentArgs args_with_all_pointers(int lv) {
  static std::array<std::int32_t, 6> metadata_words{};
  static std::array<float, 4> floats{};
  PersistentArgs a;
  a.shape = persistent_shape(problem(lv));
  a.plan = metadata_info(2, 2, a.shape.padded_heads, 4);
  a.metadata = {&metadata_words[0], &metadata_words[1], &metadata_words[2],
                &metadata_words[3], &metadata_words[4], &metadata_words[5]};
  a.q = a.kv_cache = &floats[0];
  a.kv_indices = a.qo_indptr = &metadata_words[0];
  a.partial_o = a.partial_lse = a.lse = &floats[1];
  a.o = &floats[2];
  return a;
}

// Sets buffer i of the set to null.
void drop(MetadataBuffers<const std::int32_t*>& set, std::size_t i) {
  std::size_t k = 0;
  for_each_buffer(set, [&](std::string_view, const std::int32_t*& b) {
    if (k++ == i) b = nullptr;
  });
}

TEST(PersistentLaunch, EachMissingBufferIsNamed) {
  for (std::size_t i = 0; i < kMetadataBufferNames.size(); ++i) {
    PersistentArgs a = args_with_all_pointers(512);
    drop(a.metadata, i);
    try {
      launch_mla_decode_persistent(a);
      ADD_FAILURE() << "launched without " << kMetadataBufferNames[i];
    } catch (const IncompleteMetadata& e) {
      EXPECT_EQ(e.missing(), std::vector<std::string>{std::string(kMetadataBufferNames[i])});
      EXPECT_NE(std::string(e.what()).find(kMetadataBufferNames[i]), std::string::npos) << e.what();
    }
  }
}

TEST(PersistentLaunch, SeveralMissingBuffersAreAllNamed) {
  PersistentArgs a = args_with_all_pointers(512);
  drop(a.metadata, 1);
  drop(a.metadata, 5);
  try {
    launch_mla_decode_persistent(a);
    ADD_FAILURE() << "launched with two buffers missing";
  } catch (const IncompleteMetadata& e) {
    EXPECT_EQ(e.missing(), (std::vector<std::string>{"work_indptr", "reduce_partial_map"}));
  }
}

TEST(PersistentLaunch, NoBuffersAtAllIsRefused) {
  PersistentArgs a = args_with_all_pointers(512);
  for (std::size_t i = 0; i < kMetadataBufferNames.size(); ++i) drop(a.metadata, i);
  EXPECT_THROW(launch_mla_decode_persistent(a), std::invalid_argument);
}

TEST(PersistentLaunch, RefusesUnsupportedShapesAndMissingPointers) {
  EXPECT_THROW(launch_mla_decode_persistent(args_with_all_pointers(1024)), std::invalid_argument);  // Lv > 512
  PersistentArgs a = args_with_all_pointers(512);
  a.partial_o = nullptr;
  EXPECT_THROW(launch_mla_decode_persistent(a), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck::kernels
