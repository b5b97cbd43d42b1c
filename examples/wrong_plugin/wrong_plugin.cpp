// An example of what mlacheck catches: the CPU decode of examples/cpu_plugin with one plausible
// mistake. Its scores leave out the rope channels (q.k over the kv_lora_rank latent channels
// only), as a kernel does whose score tile is sized from the value width Lv instead of Lk. Every
// case with rope_dim > 0 has wrong attention weights, so `mlacheck run --backend` with this
// plugin exits 1 with FAILED rows naming tensor O (and LSE).
#include "cpu_plugin_abi.hpp"
#include "mlacheck/backend_abi.h"

namespace {

std::int32_t run(void*, const mlacheck_mla_problem* problem, const mlacheck_mla_tensors* tensors, void*, char* error,
                 std::size_t error_size) {
  cpu_mla::DecodeOptions mistake;
  mistake.rope_in_score = false;  // the deliberate mistake
  return cpu_mla::decode_at_the_boundary(*problem, *tensors, mistake, error, error_size);
}

constexpr mlacheck_backend_v1 kTable = cpu_mla::plugin_table({.name = "wrong-example", .version = "1.0"}, run);

}  // namespace

extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t harness_abi_version) {
  return harness_abi_version == MLACHECK_BACKEND_ABI_VERSION ? &kTable : nullptr;
}
