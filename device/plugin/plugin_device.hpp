#pragma once
// The GPU side of a device plugin: the GPU it runs on, the stream its run() gets (one per backend,
// created by us: backend_abi.h never hands a device backend NULL), event timing on that stream and
// the benchmark's L2 eviction. GPU builds implement it with the runtime (plugin_device_gpu.cpp);
// a build without a GPU backend has no device plugins, and there constructing one throws
// (plugin_device_none.cpp), so host code needs no #if.
#include <functional>
#include <memory>
#include <string>

#include "device/platform/stream_handle.hpp"

namespace mlacheck {

class PluginDevice {
 public:
  // On GPU `index`, made current. Throws GpuError when the runtime fails, std::invalid_argument
  // when this build has no GPU backend.
  explicit PluginDevice(int index);
  ~PluginDevice();
  PluginDevice(const PluginDevice&) = delete;
  PluginDevice& operator=(const PluginDevice&) = delete;

  int index() const noexcept;
  std::string name() const;  // e.g. "NVIDIA H100 80GB HBM3 (sm_90)", as the hip backend names it
  std::string pci_bus_id() const;  // e.g. "0000:18:00.0", for report rows
  // Makes the GPU current on the calling thread (the runtime keeps it per thread).
  void make_current() const;
  StreamHandle stream() const noexcept;
  // Waits for the stream. Throws GpuError naming the fault a kernel raised.
  void synchronize();
  // Device-event milliseconds of the work `enqueue` puts on the stream; when `evict_l2`, a
  // buffer twice the L2's size is overwritten first (outside the timed span), so the work reads
  // its inputs from memory. Throws GpuError.
  double time_ms(const std::function<void()>& enqueue, bool evict_l2);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mlacheck
