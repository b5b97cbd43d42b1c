#include "device/planner/metadata_buffers.hpp"

#include <string>

#include "device/planner/planner_error.hpp"

namespace mlacheck {

MetadataView view(HostMetadata& m) {
  return {m.work_meta_data, m.work_indptr, m.work_info_set, m.reduce_indptr, m.reduce_final_map, m.reduce_partial_map};
}

ConstMetadataView view(const HostMetadata& m) {
  return {m.work_meta_data, m.work_indptr, m.work_info_set, m.reduce_indptr, m.reduce_final_map, m.reduce_partial_map};
}

bool metadata_supplied(const std::array<bool, 6>& present) {
  std::vector<std::string> missing;
  std::string given;
  for (std::size_t i = 0; i < present.size(); ++i) {
    const std::string name(kMetadataBufferNames[i]);
    if (!present[i]) {
      missing.push_back(name);
    } else {
      given += (given.empty() ? "" : ", ") + name;
    }
  }
  if (missing.empty()) return true;
  if (missing.size() == present.size()) return false;
  std::string list;
  for (const std::string& name : missing) list += (list.empty() ? "" : ", ") + name;
  const std::string message = "persistent decode: the six scheduling buffers go together, but " + list +
                              (missing.size() == 1 ? " is" : " are") + " missing (given: " + given +
                              "); pass all six or none";
  throw IncompleteMetadata(message, std::move(missing));
}

}  // namespace mlacheck
