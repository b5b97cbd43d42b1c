#include "device/plugin/plugin_backend.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "core/mla_sequence.hpp"
#include "device/platform/device_info.hpp"
#include "device/staging/abi_problem.hpp"
#include "device/staging/mla_decode_staging.hpp"

namespace mlacheck {

namespace {

// Room for a plugin's error message; the ABI passes its size, so longer messages are cut.
constexpr std::size_t kMessageBytes = 2048;

struct Message {
  char text[kMessageBytes] = {};
  // The text as written, terminated even if the plugin filled the whole buffer.
  std::string str() {
    text[kMessageBytes - 1] = '\0';
    return text;
  }
};


}  // namespace

PluginBackend::PluginBackend(std::shared_ptr<const PluginLibrary> library, int device_index)
    : library_(std::move(library)), table_(library_->table()) {
  if (library_->on_device()) device_ = std::make_unique<PluginDevice>(device_index);
  Message message;
  instance_ = table_.open(device_ ? device_index : 0, message.text, kMessageBytes);
  if (instance_ == nullptr) {
    const std::string why = message.str();
    throw PluginError("backend plugin " + library_->path() + ": open(" + std::to_string(device_ ? device_index : 0) +
                      ") failed: " + (why.empty() ? "it gave no message" : why));
  }
}

PRoundingPoint PluginBackend::p_rounding() const {
  // PluginLibrary refuses a table with any other code.
  return p_rounding_from_abi(table_.p_dtype).value_or(PRoundingPoint::undeclared);
}

PluginBackend::~PluginBackend() {
  const std::lock_guard lock(calls_);
  try {
    if (device_) device_->make_current();
  } catch (...) {
    // A lost device was reported by the case that lost it; close() still frees host state.
  }
  table_.close(instance_);
}

std::string PluginBackend::device_name() const { return device_ ? device_->name() : "cpu"; }

int PluginBackend::device_index() const { return device_ ? device_->index() : -1; }

std::string PluginBackend::device_pci_bus_id() const { return device_ ? device_->pci_bus_id() : ""; }

std::optional<std::string> PluginBackend::supports_locked(const MlaDecodeProblem& p) const {
  std::unique_ptr<AbiMlaProblem> abi;
  try {
    abi = std::make_unique<AbiMlaProblem>(p);
  } catch (const std::exception& e) {
    // The harness validates problems first; this is for callers that do not.
    return std::string("the problem cannot be described to the plugin: ") + e.what();
  }
  if (device_) device_->make_current();
  const char* why = table_.supports(instance_, &abi->get());
  if (why == nullptr) return std::nullopt;
  return std::string(*why != '\0' ? why : "refused by the plugin (no reason given)");
}

std::optional<std::string> PluginBackend::supports(const MlaDecodeProblem& p) const {
  const std::lock_guard lock(calls_);
  return supports_locked(p);
}

std::optional<std::string> PluginBackend::lacks_memory(const MlaDecodeProblem& p) const {
  const std::lock_guard lock(calls_);
  if (device_) device_->make_current();
  // A sequence runs step by step (the stateless begin_sequence), each step staged afresh over the
  // sequence's pool: its busiest step needs what sequence_capacity's staging does.
  const MlaDecodeProblem sized = is_sequence(p) ? sequence_capacity(p) : p;
  return staging_memory_shortfall(device_ ? StagingMemory::device : StagingMemory::host, mla_staging_bytes(sized));
}

std::optional<std::string> PluginBackend::supports(const KvGatherProblem&) const {
  return "plugin backends run mla_decode only";
}

std::unique_ptr<MlaDecodeStaging> PluginBackend::stage(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  validate(p);
  refuse_sequence_run(p, "plugin " + name());
  if (device_) device_->make_current();  // staging allocates on the current GPU, and run() runs there
  if (auto why = supports_locked(p)) throw std::invalid_argument("plugin " + name() + " cannot run " + p.name + ": " + *why);
  const AbiMlaProblem abi(p);
  const std::uint64_t workspace = table_.workspace_bytes(instance_, &abi.get());
  return std::make_unique<MlaDecodeStaging>(p, in, device_ ? StagingMemory::device : StagingMemory::host, workspace);
}

void PluginBackend::call_run(const MlaDecodeStaging& staging) {
  Message message;
  const std::int32_t status = table_.run(instance_, &staging.abi_problem(), &staging.abi_tensors(),
                                         device_ ? device_->stream() : nullptr, message.text, kMessageBytes);
  if (status == 0) return;
  // Work the plugin enqueued before it gave up may still write into the staged buffers; they are
  // freed when the exception unwinds, so wait for it first.
  std::string also;
  if (device_) {
    try {
      device_->synchronize();
    } catch (const std::exception& e) {
      also = " (and then its stream failed: " + std::string(e.what()) + ")";
    }
  }
  const std::string why = message.str();
  throw std::runtime_error("plugin " + name() + ": " +
                           (why.empty() ? "run() returned " + std::to_string(status) + " with no message" : why) + also);
}

MlaDecodeRun PluginBackend::run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) {
  if (!faults.empty()) {
    throw std::invalid_argument("plugin " + name() +
                                ": faults are switches inside mlacheck's own pipeline; a plugin runs unfaulted");
  }
  const std::lock_guard lock(calls_);
  const std::unique_ptr<MlaDecodeStaging> staging = stage(p, in);
  double ms = 0.0;
  if (device_) {
    ms = device_->time_ms([&] { call_run(*staging); }, false);
    device_->synchronize();  // a fault in the plugin's kernels surfaces here as a GpuError
  } else {
    const auto start = std::chrono::steady_clock::now();
    call_run(*staging);
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  MlaDecodeRun run = staging->collect(lse_base_from_abi(table_.lse_base));
  run.lse_written = table_.writes_lse != 0;
  run.diag.path = "plugin";
  run.diag.path_reason = "the plugin chooses its own path";
  run.diag.device_ms = ms;
  return run;
}

KvGatherRun PluginBackend::run(const KvGatherProblem& p, const KvGatherInputs&, const FaultSet&) {
  throw std::invalid_argument("plugin " + name() + " cannot run " + p.name + ": plugin backends run mla_decode only");
}

DecodeTiming PluginBackend::time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) {
  if (runs < 1) throw std::invalid_argument("time_decode: runs must be >= 1");
  const std::lock_guard lock(calls_);
  const std::unique_ptr<MlaDecodeStaging> staging = stage(p, in);
  DecodeTiming t;
  t.path = "plugin";
  for (int i = 0; i < warmup + runs; ++i) {
    double ms = 0.0;
    if (device_) {
      ms = device_->time_ms([&] { call_run(*staging); }, true);
    } else {
      const auto start = std::chrono::steady_clock::now();
      call_run(*staging);
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    if (i >= warmup) t.us.push_back(1000.0 * ms);
  }
  if (device_) device_->synchronize();
  const MlaDecodeRun last = staging->collect(lse_base_from_abi(table_.lse_base));
  if (!last.diag.broken_canaries.empty()) {
    throw std::runtime_error("benchmark of " + p.name + " with plugin " + name() + " overwrote the guard of " +
                             last.diag.broken_canaries[0].buffer);
  }
  t.median_us = median_of(t.us);
  return t;
}

BackendOrReason load_plugin_backend(const std::string& path, int device_index) {
  auto library = std::make_shared<const PluginLibrary>(path);
  if (library->on_device()) {
    const DeviceAvailability avail = probe_devices();
    const std::string plugin = "backend plugin " + path + " (" + library->name() + ") runs on a GPU: ";
    if (avail.count == 0) return {nullptr, plugin + avail.reason};
    if (device_index < 0 || device_index >= avail.count) {
      return {nullptr, plugin + "GPU " + std::to_string(device_index) + " does not exist (" +
                           std::to_string(avail.count) + " visible)"};
    }
  }
  return {std::make_unique<PluginBackend>(std::move(library), device_index), ""};
}

}  // namespace mlacheck
