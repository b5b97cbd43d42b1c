// mlacheck's example host backend: cpu_mla_decode behind the backend ABI, version 1.
//   mlacheck run --backend build/examples/cpu_plugin/libmlacheck_cpu_plugin.so --out DIR
// Host memory (the harness stages every tensor in guarded host buffers and passes stream NULL),
// natural-log LSE, P kept in float (p_dtype MLACHECK_DTYPE_F32: the row sum is of the same float P,
// and O is rounded once to o_dtype). No C++ exception crosses the C boundary. The ABI's entry points
// other than run() are the decode's own (cpu_plugin_abi.hpp, shared with examples/wrong_plugin).
#include "cpu_plugin_abi.hpp"
#include "mlacheck/backend_abi.h"

namespace {

std::int32_t run(void*, const mlacheck_mla_problem* problem, const mlacheck_mla_tensors* tensors, void*, char* error,
                 std::size_t error_size) {
  return cpu_mla::decode_at_the_boundary(*problem, *tensors, {}, error, error_size);
}

// Host memory, natural-log LSE written (cpu_plugin_abi.hpp's defaults).
constexpr mlacheck_backend_v1 kTable =
    cpu_mla::plugin_table({.name = "cpu-example", .version = "1.0", .p_dtype = MLACHECK_DTYPE_F32 /* P stays float */},
                          run);

}  // namespace

extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t harness_abi_version) {
  return harness_abi_version == MLACHECK_BACKEND_ABI_VERSION ? &kTable : nullptr;
}
