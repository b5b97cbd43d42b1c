#pragma once
// An MLA decode on the CPU through mlacheck's backend ABI (include/mlacheck/backend_abi.h):
// every tensor is read through the shapes and strides the harness passes, the cache through the
// block table, codes decoded here, softmax and accumulation in float, O written in o_dtype with
// round-to-nearest-even and LSE in natural log. The plugin table (cpu_plugin.cpp, through
// cpu_plugin_abi.hpp) is a thin shell around these three functions; examples/wrong_plugin reuses
// them with one mistake.
#include <cstddef>
#include <cstdint>

#include "mlacheck/backend_abi.h"

namespace cpu_mla {

struct DecodeOptions {
  // The score is q.k over all lk channels: the latent and the rope part. examples/wrong_plugin
  // turns this off to show mlacheck catching a kernel that forgot the rope channels.
  bool rope_in_score = true;
};

// Null when decode() can run the problem, else why not (a static string).
const char* unsupported(const mlacheck_mla_problem& problem);

// Float scratch decode() works in: one request's dequantised cache rows, its scores, one query
// row and one output row. The harness allocates it (workspace_bytes of the ABI).
std::uint64_t workspace_bytes(const mlacheck_mla_problem& problem);

// 0 on success; otherwise non-zero with a message in `error` naming the tensor or index at fault.
int decode(const mlacheck_mla_problem& problem, const mlacheck_mla_tensors& tensors, const DecodeOptions& options,
           char* error, std::size_t error_size);

}  // namespace cpu_mla
