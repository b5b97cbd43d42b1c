// Test plugins: the example CPU decode (examples/cpu_plugin) with one misbehaviour each, chosen at
// build time by TEST_PLUGIN_KIND, so each way a user's kernel can go wrong is proven to be caught
// (plugin_backend_test.cpp, and the CLI tests for what needs a process of its own):
//   overrun            writes one element past the end of O         -> FAILED, canary of buffer o
//   unwritten          leaves O's last element as the harness left it -> FAILED, O unwritten
//   nan                writes a NaN into O                           -> FAILED, O non-finite
//   error              returns an error code with a message          -> ERRORED with the message
//   faulty_process     crashes (SIGSEGV) or hangs on the case named by MLACHECK_TEST_PLUGIN_CRASH_CASE
//                      or MLACHECK_TEST_PLUGIN_HANG_CASE             -> one ERRORED row in `mlacheck run`
//   lse_log2           writes LSE in base 2 and says so              -> PASSED (the harness converts)
//   lse_base_mismatch  writes LSE in base 2 but declares natural     -> FAILED naming LSE
//   no_lse             writes no LSE and declares writes_lse = 0     -> PASSED on O alone
//   picky              refuses multi-token requests in supports()    -> SKIPPED with its reason
//   device_memory      declares device memory; its run() has no kernel and returns an error
//   narrow             declares a support space (mlacheck_backend_space) and refuses what lies
//                      outside it in supports()                  -> its property sweep drawn within
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

#include "cpu_plugin_abi.hpp"
#include "mlacheck/backend_abi.h"

#define MLACHECK_STRINGIFY_VALUE(x) #x
#define MLACHECK_STRINGIFY(x) MLACHECK_STRINGIFY_VALUE(x)

namespace {

constexpr std::string_view kKind = MLACHECK_STRINGIFY(TEST_PLUGIN_KIND);
constexpr bool kWritesLog2 = kKind == "lse_log2" || kKind == "lse_base_mismatch";

std::size_t element_bytes(std::int32_t dtype) {
  return dtype == MLACHECK_DTYPE_F32 ? 4 : dtype == MLACHECK_DTYPE_BF16 || dtype == MLACHECK_DTYPE_F16 ? 2 : 1;
}

// Byte address of O's element (token, head, channel) through its strides.
unsigned char* o_element(const mlacheck_tensor& o, std::int64_t token, std::int64_t head, std::int64_t channel) {
  const std::int64_t index = token * o.strides[0] + head * o.strides[1] + channel * o.strides[2];
  return static_cast<unsigned char*>(o.data) + index * static_cast<std::int64_t>(element_bytes(o.dtype));
}

bool env_names(const char* variable, const char* case_name) {
  const char* value = std::getenv(variable);
  return value != nullptr && std::strcmp(value, case_name) == 0;
}

// The narrow kind's space: Lv 512 with rope 64 or 0, 16-bit caches of q's type or an e4m3fn cache
// under bf16 q, at least 16 heads a rank, q_len up to 4, no padded requests, no sequences.
constexpr const char* kNarrowSpace =
    "space:lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,f16/f16/f16,bf16/fp8_e4m3fn/bf16;heads=16..128;max_q=4;"
    "q_over_kv=0;sequences=0";

const char* narrow_refusal(const mlacheck_mla_problem* p) {
  if (p->kv_lora_rank != 512 || (p->rope_dim != 64 && p->rope_dim != 0)) return "narrow test plugin: Lv/rope";
  const bool same16 = p->q_dtype == p->kv_dtype && p->kv_dtype == p->o_dtype &&
                      (p->q_dtype == MLACHECK_DTYPE_BF16 || p->q_dtype == MLACHECK_DTYPE_F16);
  const bool fp8_cache = p->q_dtype == MLACHECK_DTYPE_BF16 && p->kv_dtype == MLACHECK_DTYPE_FP8_E4M3FN &&
                         p->o_dtype == MLACHECK_DTYPE_BF16;
  if (!same16 && !fp8_cache) return "narrow test plugin: dtypes";
  if (p->heads < 16) return "narrow test plugin: heads";
  if (p->max_q_len > 4) return "narrow test plugin: q_len";
  return nullptr;
}

const char* supports(void* instance, const mlacheck_mla_problem* p) {
  if (kKind == "picky" && p->max_q_len > 1) return "picky test plugin: one query token per request only";
  if (kKind == "narrow") {
    if (const char* why = narrow_refusal(p); why != nullptr) return why;
  }
  return cpu_mla::plugin_supports(instance, p);
}

std::int32_t run(void*, const mlacheck_mla_problem* p, const mlacheck_mla_tensors* t, void*, char* error,
                 std::size_t error_size) {
  if (kKind == "error" || kKind == "device_memory") {
    std::snprintf(error, error_size, "%s test plugin: deliberate failure in case %s", kKind.data(), p->name);
    return 7;
  }
  if (kKind == "faulty_process") {
    if (env_names("MLACHECK_TEST_PLUGIN_CRASH_CASE", p->name)) std::raise(SIGSEGV);
    if (env_names("MLACHECK_TEST_PLUGIN_HANG_CASE", p->name)) {
      while (true) std::this_thread::sleep_for(std::chrono::hours(1));
    }
  }
  mlacheck_mla_tensors tensors = *t;
  std::vector<float> private_lse;
  if (kKind == "no_lse") {
    // The decode writes an LSE; this plugin keeps it to itself, so the staged one stays poisoned.
    private_lse.resize(static_cast<std::size_t>(p->total_q_tokens) * static_cast<std::size_t>(p->heads));
    tensors.lse.data = private_lse.data();
    tensors.lse.strides[0] = p->heads;
    tensors.lse.strides[1] = 1;
  }
  const mlacheck_tensor& o = t->o;
  const std::int64_t last_token = p->total_q_tokens - 1, last_head = p->heads - 1, last_channel = p->kv_lora_rank - 1;
  unsigned char untouched[4] = {};
  if (kKind == "unwritten") std::memcpy(untouched, o_element(o, last_token, last_head, last_channel), element_bytes(o.dtype));

  if (int rc = cpu_mla::decode(*p, tensors, {}, error, error_size)) return rc;

  if (kKind == "unwritten") std::memcpy(o_element(o, last_token, last_head, last_channel), untouched, element_bytes(o.dtype));
  if (kKind == "overrun") {
    // One element past O's last: the first bytes of the guard after the buffer.
    std::memset(o_element(o, last_token, last_head, last_channel) + element_bytes(o.dtype), 0, element_bytes(o.dtype));
  }
  if (kKind == "nan") std::memset(o_element(o, 0, 0, 0), 0xFF, element_bytes(o.dtype));  // all ones: a NaN in f32/bf16/f16
  if (kWritesLog2) {
    auto* lse = static_cast<float*>(t->lse.data);
    for (std::int64_t r = 0; r < p->total_q_tokens; ++r) {
      for (std::int64_t h = 0; h < p->heads; ++h) lse[r * t->lse.strides[0] + h * t->lse.strides[1]] /= std::log(2.0f);
    }
  }
  return 0;
}

constexpr mlacheck_backend_v1 kTable =
    cpu_mla::plugin_table({.name = "test-" MLACHECK_STRINGIFY(TEST_PLUGIN_KIND),
                           .version = "0.0-test",
                           .memory = kKind == "device_memory" ? MLACHECK_MEMORY_DEVICE : MLACHECK_MEMORY_HOST,
                           .writes_lse = kKind == "no_lse" ? 0 : 1,
                           .lse_base = kKind == "lse_log2" ? MLACHECK_LSE_LOG2 : MLACHECK_LSE_NATURAL},
                          run, supports);

}  // namespace

extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t harness_abi_version) {
  return harness_abi_version == MLACHECK_BACKEND_ABI_VERSION ? &kTable : nullptr;
}

// Every kind but narrow declares no space (the symbol returns NULL), as a plugin built before the
// addition does by not exporting it.
extern "C" MLACHECK_BACKEND_EXPORT const char* mlacheck_backend_space(std::uint32_t harness_space_version) {
  if (harness_space_version != MLACHECK_BACKEND_SPACE_VERSION) return nullptr;
  return kKind == "narrow" ? kNarrowSpace : nullptr;
}
