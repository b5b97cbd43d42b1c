#pragma once
// A backend plugin -- a shared library speaking include/mlacheck/backend_abi.h -- behind the
// Backend interface, so the harness runs a user's MLA decode kernel exactly as it runs its own:
// inputs staged by the staging layer (device/staging) in the plugin's memory with poisoned
// outputs and guarded buffers, the plugin's run() on a stream of ours (device plugins) or on the
// calling thread (host plugins), then the same collect() and the same oracle comparison.
//
// Plugins run mla_decode only (kv_gather cases are SKIPPED), and never with faults: the fault
// switches are branches inside mlacheck's own pipeline, so run() refuses a non-empty FaultSet.
// Calls into the plugin are serialised (the ABI promises no thread safety, and a supports()
// string lives only until the next call), so supports() from the harness's prepare threads waits
// while a run is in progress.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "device/backend.hpp"
#include "device/benchmark.hpp"
#include "device/plugin/plugin_device.hpp"
#include "device/plugin/plugin_library.hpp"

namespace mlacheck {

class MlaDecodeStaging;

class PluginBackend final : public Backend {
 public:
  // Opens an instance on GPU `device_index` (device plugins; host plugins get 0). Throws
  // PluginError naming the library when open() fails, GpuError when the GPU cannot be used.
  PluginBackend(std::shared_ptr<const PluginLibrary> library, int device_index);
  ~PluginBackend() override;  // close(), on the plugin's GPU

  std::string name() const override { return library_->name(); }
  std::string version() const override { return library_->version(); }
  std::string device_name() const override;  // the GPU's name and arch, or "cpu"
  int device_index() const override;                // the GPU's index; -1 for a host plugin
  std::string device_pci_bus_id() const override;  // "" for a host plugin
  // The table's p_dtype (backend_abi.h's mlacheck_p_rounding and dtype codes).
  PRoundingPoint p_rounding() const override;
  bool on_device() const noexcept { return device_ != nullptr; }
  const PluginLibrary& library() const noexcept { return *library_; }

  // The plugin's own answer to the problem as the ABI describes it.
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override;
  // The staged tensors against the free memory of the plugin's side (host or its GPU) now.
  std::optional<std::string> lacks_memory(const MlaDecodeProblem& p) const override;
  // Always a reason: plugins run mla_decode only.
  std::optional<std::string> supports(const KvGatherProblem& p) const override;

  // Stages, runs and collects one case. A non-zero return from the plugin throws
  // std::runtime_error "plugin <name>: <its message>" (the case is ERRORED); a kernel fault on the
  // stream a GpuError. When the plugin writes no LSE, the result's lse_written is false.
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) override;
  // Throws std::invalid_argument: plugins run mla_decode only.
  KvGatherRun run(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) override;

  // `mlacheck bench`: `runs` timed calls of the plugin's run() on one staging, after `warmup`
  // untimed ones. Device plugins: device events on the plugin's stream with the L2 evicted before
  // each run; host plugins: a steady clock around the call (nothing is evicted). Throws as run()
  // does, and std::runtime_error when a run broke a guard.
  DecodeTiming time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) override;

 private:
  // Validates p, checks the plugin supports it, and stages `in` with the workspace it asks for.
  std::unique_ptr<MlaDecodeStaging> stage(const MlaDecodeProblem& p, const MlaDecodeInputs& in);
  // One call of the plugin's run(); throws for a non-zero return after its work has drained.
  void call_run(const MlaDecodeStaging& staging);
  // The plugin's supports() with the lock held.
  std::optional<std::string> supports_locked(const MlaDecodeProblem& p) const;

  std::shared_ptr<const PluginLibrary> library_;  // first: unloaded after everything below
  const mlacheck_backend_v1& table_;
  std::unique_ptr<PluginDevice> device_;  // null for host plugins
  void* instance_ = nullptr;
  mutable std::mutex calls_;  // one call into the plugin at a time
};

// The plugin at `path`, on GPU `device_index` when it runs on device memory. Throws PluginError
// (naming the path) for a library that is no usable plugin and for open() failing. A device
// plugin with no GPU to run on (none present, or a build without a GPU backend) is no error of
// the plugin: the answer is a null backend and the reason, and its cases are SKIPPED, as the hip
// backend's are.
BackendOrReason load_plugin_backend(const std::string& path, int device_index);

}  // namespace mlacheck
