// An example of what mlacheck catches: the CPU decode of examples/cpu_plugin with one plausible
// mistake. Its scores leave out the rope channels (q.k over the kv_lora_rank latent channels
// only), as a kernel does whose score tile is sized from the value width Lv instead of Lk. Every
// case with rope_dim > 0 has wrong attention weights, so `mlacheck run --backend` with this
// plugin exits 1 with FAILED rows naming tensor O (and LSE).
#include <cstdio>
#include <exception>
#include <new>

#include "cpu_mla_decode.hpp"
#include "mlacheck/backend_abi.h"

namespace {

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
  cpu_mla::DecodeOptions mistake;
  mistake.rope_in_score = false;  // the deliberate mistake
  try {
    return cpu_mla::decode(*problem, *tensors, mistake, error, error_size);
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

const mlacheck_backend_v1 kTable = {
    MLACHECK_BACKEND_ABI_VERSION,
    sizeof(mlacheck_backend_v1),
    "wrong-example",
    "1.0",
    MLACHECK_MEMORY_HOST,
    1,  // writes_lse
    MLACHECK_LSE_NATURAL,
    -1,  // p_dtype: P stays float
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
