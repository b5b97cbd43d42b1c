#pragma once
// The six scheduling buffers of a persistent decode, always handled as one set (UPSTREAM.md S1:
// upstream passed them separately until a launch with one missing ran silently). The holder type
// varies by stage -- host vectors while planning, spans to fill or read, device pointers or
// optionals at a launch -- so the set is a template over it.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace mlacheck {

template <class T>
struct MetadataBuffers {
  T work_meta_data;      // MetadataHeader
  T work_indptr;         // num_cus + 1: CU c's items are work_info_set[work_indptr[c] .. [c + 1])
  T work_info_set;       // WorkItem per item, 8 int32 each
  T reduce_indptr;       // reduce tiles + 1: tile i's partials are reduce_partial_map[[i] .. [i + 1])
  T reduce_final_map;    // FinalTile per reduce tile, 2 int32 each
  T reduce_partial_map;  // partial_qo_loc of every split item, grouped by reduce tile

  bool operator==(const MetadataBuffers&) const = default;
};

inline constexpr std::array<std::string_view, 6> kMetadataBufferNames = {
    "work_meta_data", "work_indptr", "work_info_set", "reduce_indptr", "reduce_final_map", "reduce_partial_map",
};

// Calls f(name, buffer) for the six buffers in kMetadataBufferNames order.
template <class Set, class F>
void for_each_buffer(Set& set, F&& f) {
  f(kMetadataBufferNames[0], set.work_meta_data);
  f(kMetadataBufferNames[1], set.work_indptr);
  f(kMetadataBufferNames[2], set.work_info_set);
  f(kMetadataBufferNames[3], set.reduce_indptr);
  f(kMetadataBufferNames[4], set.reduce_final_map);
  f(kMetadataBufferNames[5], set.reduce_partial_map);
}

using HostMetadata = MetadataBuffers<std::vector<std::int32_t>>;
using MetadataView = MetadataBuffers<std::span<std::int32_t>>;
using ConstMetadataView = MetadataBuffers<std::span<const std::int32_t>>;

MetadataView view(HostMetadata& m);
ConstMetadataView view(const HostMetadata& m);

// The all-or-none rule for a launch: returns true when all six buffers are present, false when
// none is (the backend then plans them itself), and throws IncompleteMetadata naming every missing
// buffer for any other subset. present[i] is buffer kMetadataBufferNames[i].
[[nodiscard]] bool metadata_supplied(const std::array<bool, 6>& present);

template <class T>
[[nodiscard]] bool metadata_supplied(const MetadataBuffers<std::optional<T>>& set) {
  std::array<bool, 6> present{};
  std::size_t i = 0;
  for_each_buffer(set, [&](std::string_view, const std::optional<T>& b) { present[i++] = b.has_value(); });
  return metadata_supplied(present);
}

// Device pointers: nullptr is missing (metadata_info never asks for a zero-size buffer, so a
// supplied buffer is never null).
template <class T>
[[nodiscard]] bool metadata_supplied(const MetadataBuffers<T*>& set) {
  std::array<bool, 6> present{};
  std::size_t i = 0;
  for_each_buffer(set, [&](std::string_view, T* b) { present[i++] = b != nullptr; });
  return metadata_supplied(present);
}

}  // namespace mlacheck
