// mlacheck's example host backend: cpu_mla_decode behind the backend ABI, version 1.
//   mlacheck run --backend build/examples/cpu_plugin/libmlacheck_cpu_plugin.so --out DIR
// Host memory (the harness stages every tensor in guarded host buffers and passes stream NULL),
// natural-log LSE, P kept in float (p_dtype MLACHECK_DTYPE_F32: the row sum is of the same float P,
// and O is rounded once to o_dtype). No C++ exception crosses the C boundary.
#include <cstdio>
#include <exception>
#include <new>

#include "cpu_mla_decode.hpp"
#include "mlacheck/backend_abi.h"

namespace {

// The plugin holds no state between calls; an instance exists because the ABI hands one to
// every call (a GPU plugin keeps its handles and caches there).
struct Instance {};

void* open_instance(std::int32_t, char* error, std::size_t error_size) {
  auto* instance = new (std::nothrow) Instance;
  if (instance == nullptr) std::snprintf(error, error_size, "out of host memory");
  return instance;
}

void close_instance(void* instance) { delete static_cast<Instance*>(instance); }

const char* supports(void*, const mlacheck_mla_problem* problem) { return cpu_mla::unsupported(*problem); }

std::uint64_t workspace_bytes(void*, const mlacheck_mla_problem* problem) { return cpu_mla::workspace_bytes(*problem); }

std::int32_t run(void*, const mlacheck_mla_problem* problem, const mlacheck_mla_tensors* tensors, void*, char* error,
                 std::size_t error_size) {
  try {
    return cpu_mla::decode(*problem, *tensors, {}, error, error_size);
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

const mlacheck_backend_v1 kTable = {
    MLACHECK_BACKEND_ABI_VERSION,
    sizeof(mlacheck_backend_v1),
    "cpu-example",
    "1.0",
    MLACHECK_MEMORY_HOST,
    1,  // writes_lse
    MLACHECK_LSE_NATURAL,
    MLACHECK_DTYPE_F32,  // p_dtype: P stays float
    open_instance,
    close_instance,
    supports,
    workspace_bytes,
    run,
};

}  // namespace

extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t harness_abi_version) {
  return harness_abi_version == MLACHECK_BACKEND_ABI_VERSION ? &kTable : nullptr;
}
