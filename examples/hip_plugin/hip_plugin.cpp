// mlacheck's own hip backend built as a backend-ABI plugin (include/mlacheck/backend_abi.h): the
// same pipeline as the built-in "hip" backend (device/hip_backend/mla_decode_pipeline.hpp,
// run_hip_decode_on), on the tensors the harness staged and on the harness's stream. Loading it
// through --backend and comparing with the built-in backend tests the ABI path end to end: the two
// must agree bit for bit.
//
// Declarations in the table:
//   memory DEVICE; writes_lse 1, natural log (row_group_attention.hpp converts from log2);
//   p_dtype MLACHECK_P_MMA_INPUT: the kernels round P to the MMA type, which is q_dtype when q and
//     kv share a 16-bit dtype or the cache is fp8 under 16-bit q, bf16 for fp8 q, while mixed
//     16-bit q/kv split P exactly into two MMA-type terms; the row sum is of fp32 P. The built-in backend declares the same
//     (HipBackend::p_rounding), so both are judged by the same rule.
//   workspace: the pipeline's intermediates (padded q/O/LSE, expanded page indices, the path's
//     partials and persistent plan), carved from the harness's guarded, poisoned workspace; the
//     size comes from the same preparation the run does (hip_decode_workspace_bytes).
// run() only enqueues work on the stream: plan uploads are asynchronous copies whose host side the
// instance keeps until its next run or close.
#include <cstdio>
#include <exception>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "device/hip_backend/decode_intermediates.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/hip_backend/staged_mla_tensors.hpp"
#include "device/faults.hpp"
#include "device/platform/device_info.hpp"
#include "device/staging/abi_problem.hpp"
#include "mlacheck/backend_abi.h"

#ifndef MLACHECK_HIP_PLUGIN_VERSION
#error "the build defines MLACHECK_HIP_PLUGIN_VERSION"
#endif

namespace mlacheck {
namespace {

struct Instance {
  int device = 0;
  FaultSet seeded;  // $MLACHECK_HIP_PLUGIN_FAULTS: a defect put back on purpose (seeded_faults)
  DeviceInfo info;
  std::string reason;  // supports()'s last answer: valid until the next call, as the ABI asks
  std::unique_ptr<WorkspaceIntermediates> last_run;  // the host side of the last run's uploads
};

void write_error(char* error, std::size_t size, const std::string& message) {
  if (error == nullptr || size == 0) return;
  std::snprintf(error, size, "%s", message.c_str());
}

// A plugin with a known defect, for proving that the scenario rows catch it in a kernel reached
// through the ABI as they do in the built-in backend: $MLACHECK_HIP_PLUGIN_FAULTS lists fault
// names (device/faults.hpp, comma-separated, e.g. cache-offset-32bit for UPSTREAM R4) that every
// run of this instance carries. An unknown name fails open() naming it.
FaultSet seeded_faults() {
  FaultSet faults;
  const char* env = std::getenv("MLACHECK_HIP_PLUGIN_FAULTS");
  std::string_view rest = env == nullptr ? "" : env;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    if (name.empty()) continue;
    const std::optional<Fault> f = parse_fault(name);
    if (!f) throw std::invalid_argument("MLACHECK_HIP_PLUGIN_FAULTS: unknown fault '" + std::string(name) + "'");
    faults.on(*f);
  }
  return faults;
}

void* open_instance(std::int32_t device_index, char* error, std::size_t error_size) {
  try {
    auto instance = std::make_unique<Instance>();
    instance->seeded = seeded_faults();
    select_device(device_index);
    instance->device = device_index;
    instance->info = device_info(device_index);
    return instance.release();
  } catch (const std::exception& e) {
    write_error(error, error_size, std::string("mlacheck-hip: GPU ") + std::to_string(device_index) + ": " + e.what());
    return nullptr;
  }
}

void close_instance(void* instance) { delete static_cast<Instance*>(instance); }

const char* supports_problem(void* instance, const mlacheck_mla_problem* problem) {
  auto& self = *static_cast<Instance*>(instance);
  try {
    const std::optional<std::string> why = hip_mla_decode_unsupported(problem_from_abi(*problem), self.info);
    if (!why) return nullptr;
    self.reason = *why;
  } catch (const std::exception& e) {
    self.reason = e.what();
  }
  return self.reason.c_str();
}

std::uint64_t problem_workspace_bytes(void* instance, const mlacheck_mla_problem* problem) {
  try {
    return hip_decode_workspace_bytes(problem_from_abi(*problem), static_cast<Instance*>(instance)->info);
  } catch (const std::exception&) {
    return 0;  // supports() names the problem; a run then fails naming what did not fit
  }
}

std::int32_t run_problem(void* instance, const mlacheck_mla_problem* problem, const mlacheck_mla_tensors* tensors,
                 void* stream, char* error, std::size_t error_size) {
  auto& self = *static_cast<Instance*>(instance);
  try {
    self.last_run.reset();  // the harness synchronised after the last run: its uploads are done
    select_device(self.device);
    const MlaDecodeProblem p = problem_from_abi(*problem);
    if (const auto why = hip_mla_decode_unsupported(p, self.info)) {
      throw std::invalid_argument("mlacheck-hip cannot run " + p.name + ": " + *why);
    }
    const StagedMlaTensors staged = staged_tensors(*tensors, p);
    auto scratch = std::make_unique<WorkspaceIntermediates>(tensors->workspace, tensors->workspace_bytes, stream);
    run_hip_decode_on(p, staged, *scratch, self.info, stream, self.seeded, DeviceTiming::none);
    self.last_run = std::move(scratch);
    return 0;
  } catch (const std::exception& e) {
    write_error(error, error_size, e.what());
    return 1;
  }
}

const mlacheck_backend_v1 kTable = {
    MLACHECK_BACKEND_ABI_VERSION,
    sizeof(mlacheck_backend_v1),
    "mlacheck-hip",
    MLACHECK_HIP_PLUGIN_VERSION,
    MLACHECK_MEMORY_DEVICE,
    1,
    MLACHECK_LSE_NATURAL,
    MLACHECK_P_MMA_INPUT,
    open_instance,
    close_instance,
    supports_problem,
    problem_workspace_bytes,
    run_problem,
};

}  // namespace
}  // namespace mlacheck

extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(
    std::uint32_t harness_abi_version) {
  return harness_abi_version == MLACHECK_BACKEND_ABI_VERSION ? &mlacheck::kTable : nullptr;
}
