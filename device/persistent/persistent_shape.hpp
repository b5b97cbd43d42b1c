#pragma once
// Host side of the persistent MLA decode (plain C++, no GPU types): the shape its kernels see, the
// shapes they refuse, and the partial buffers a plan needs. The launcher is persistent_decode.hpp.
#include <cstddef>
#include <optional>
#include <string>

#include "core/mla_problem.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/planner/metadata.hpp"

namespace mlacheck::kernels {

// Everything the persistent kernels need from an MlaDecodeProblem: its row tiles (the grid comes
// from the plan).
using PersistentShape = RowTileShape;

PersistentShape persistent_shape(const MlaDecodeProblem& p);

// nullopt when the kernels handle the shape. The persistent kernel attends with the split-KV
// row-group machinery, so it has the same limits (head tiles, value and rope widths, dtypes), and
// the reason is split_kv_unsupported's.
std::optional<std::string> persistent_unsupported(const PersistentShape& s);

// Partial O [plan.partial_rows, plan.padded_heads, lv] and LSE [plan.partial_rows, plan.padded_heads],
// in floats: sized from the plan's head count, like the partial rows themselves.
struct PersistentWorkspace {
  std::size_t partial_o_floats = 0;
  std::size_t partial_lse_floats = 0;
};
PersistentWorkspace persistent_workspace(const MetadataInfo& plan, int lv);

}  // namespace mlacheck::kernels
