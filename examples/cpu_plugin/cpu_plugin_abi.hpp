#pragma once
// The backend ABI's entry points around cpu_mla::decode, written once for every plugin built on it
// (examples/cpu_plugin, examples/wrong_plugin and the plugin loader's test plugins): the instance,
// supports(), workspace_bytes() and a run() that lets no C++ exception cross the C boundary. A
// plugin names itself, says what it writes and passes its own run() where it does more than decode.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>

#include "cpu_mla_decode.hpp"
#include "mlacheck/backend_abi.h"

namespace cpu_mla {

// The decode holds no state between calls; an instance exists because the ABI hands one to every
// call (a GPU plugin keeps its handles and caches there).
struct PluginInstance {};

inline void* open_instance(std::int32_t, char* error, std::size_t error_size) {
  auto* instance = new (std::nothrow) PluginInstance;
  if (instance == nullptr) std::snprintf(error, error_size, "out of host memory");
  return instance;
}

inline void close_instance(void* instance) { delete static_cast<PluginInstance*>(instance); }

inline const char* plugin_supports(void*, const mlacheck_mla_problem* problem) { return unsupported(*problem); }

inline std::uint64_t plugin_workspace_bytes(void*, const mlacheck_mla_problem* problem) {
  return workspace_bytes(*problem);
}

// decode() with `options`, an exception turned into error code 1 with its message.
inline std::int32_t decode_at_the_boundary(const mlacheck_mla_problem& problem, const mlacheck_mla_tensors& tensors,
                                           const DecodeOptions& options, char* error, std::size_t error_size) {
  try {
    return decode(problem, tensors, options, error, error_size);
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

// What a plugin over this decode says about itself in its table (backend_abi.h's fields of the same
// names): host memory, natural-log LSE written, and P in float unless it says otherwise.
struct PluginDeclaration {
  const char* name = nullptr;
  const char* version = nullptr;
  std::int32_t memory = MLACHECK_MEMORY_HOST;
  std::int32_t writes_lse = 1;
  std::int32_t lse_base = MLACHECK_LSE_NATURAL;
  std::int32_t p_dtype = -1;  // -1: not declared
};

// The table of a plugin over this decode: its declaration, its run() and, where it refuses more than
// the decode does, its own supports().
constexpr mlacheck_backend_v1 plugin_table(const PluginDeclaration& d, decltype(mlacheck_backend_v1::run) run,
                                           decltype(mlacheck_backend_v1::supports) supports = plugin_supports) {
  return {MLACHECK_BACKEND_ABI_VERSION,
          sizeof(mlacheck_backend_v1),
          d.name,
          d.version,
          d.memory,
          d.writes_lse,
          d.lse_base,
          d.p_dtype,
          open_instance,
          close_instance,
          supports,
          plugin_workspace_bytes,
          run};
}

}  // namespace cpu_mla
