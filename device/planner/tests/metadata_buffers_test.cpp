// UPSTREAM.md S1: the six scheduling buffers travel together; any other subset is refused by name.
#include "device/planner/metadata_buffers.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <string>

#include "device/planner/planner_error.hpp"

namespace mlacheck {
namespace {

// Buffer i is present when bit i of `mask` is set.
template <class T>
MetadataBuffers<T> subset(unsigned mask, T present, T missing) {
  MetadataBuffers<T> set{};
  unsigned bit = 1;
  for_each_buffer(set, [&](std::string_view, T& b) {
    b = (mask & bit) != 0 ? present : missing;
    bit <<= 1;
  });
  return set;
}

std::vector<std::string> expected_missing(unsigned mask) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kMetadataBufferNames.size(); ++i) {
    if ((mask & (1u << i)) == 0) names.emplace_back(kMetadataBufferNames[i]);
  }
  return names;
}

}  // namespace

RC_GTEST_PROP(MetadataBuffersProperty, PartialSetIsRefusedNamingTheMissingBuffers, ()) {
  const auto mask = *rc::gen::inRange(0u, 64u);
  static const std::int32_t storage = 0;
  const auto as_optional = subset<std::optional<int>>(mask, 1, std::nullopt);
  const auto as_pointer = subset<const std::int32_t*>(mask, &storage, nullptr);
  if (mask == 63u || mask == 0u) {
    RC_ASSERT(metadata_supplied(as_optional) == (mask == 63u));
    RC_ASSERT(metadata_supplied(as_pointer) == (mask == 63u));
    return;
  }
  for (bool pointers : {false, true}) {
    try {
      static_cast<void>(pointers ? metadata_supplied(as_pointer) : metadata_supplied(as_optional));
      RC_FAIL("a partial set was accepted");
    } catch (const IncompleteMetadata& e) {
      RC_ASSERT(e.missing() == expected_missing(mask));
      for (const std::string& name : e.missing()) RC_ASSERT(std::string(e.what()).find(name) != std::string::npos);
    }
  }
}

TEST(MetadataBuffers, OneMissingBufferIsNamedInTheMessage) {
  auto set = subset<std::optional<int>>(63u, 1, std::nullopt);
  set.reduce_final_map.reset();
  try {
    static_cast<void>(metadata_supplied(set));
    FAIL() << "accepted a set without reduce_final_map";
  } catch (const IncompleteMetadata& e) {
    EXPECT_STREQ(e.what(),
                 "persistent decode: the six scheduling buffers go together, but reduce_final_map is missing "
                 "(given: work_meta_data, work_indptr, work_info_set, reduce_indptr, reduce_partial_map); "
                 "pass all six or none");
  }
}

}  // namespace mlacheck
