#include <algorithm>

#include "device/hip_backend/gpu_timer.hpp"
#include "device/hip_backend/l2_flush.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/device_info.hpp"
#include "device/plugin/plugin_device.hpp"
#include "device/staging/device_stream.hpp"

namespace mlacheck {

struct PluginDevice::State {
  DeviceInfo info;
  DeviceStream stream;  // created on info.index: the constructor makes it current first
  std::unique_ptr<DeviceBuffer> l2_scratch;  // allocated at the first timing that evicts the L2
};

namespace {

DeviceInfo current_device(int index) {
  select_device(index);
  return device_info(index);
}

}  // namespace

PluginDevice::PluginDevice(int index) : state_(new State{current_device(index), {}, nullptr}) {}

PluginDevice::~PluginDevice() {
  // The stream and the scratch are freed on their GPU; a lost device was reported already.
  try {
    if (state_) make_current();
  } catch (...) {
  }
}

int PluginDevice::index() const noexcept { return state_->info.index; }

std::string PluginDevice::name() const { return state_->info.name + " (" + state_->info.arch + ")"; }

std::string PluginDevice::pci_bus_id() const { return state_->info.pci_bus_id; }

void PluginDevice::make_current() const { select_device(state_->info.index); }

StreamHandle PluginDevice::stream() const noexcept { return state_->stream.handle(); }

void PluginDevice::synchronize() { state_->stream.synchronize(); }

double PluginDevice::time_ms(const std::function<void()>& enqueue, bool evict_l2) {
  const StreamHandle s = state_->stream.handle();
  if (evict_l2) {
    if (!state_->l2_scratch) {
      state_->l2_scratch = std::make_unique<DeviceBuffer>(
          "l2_flush", std::max<std::size_t>(2 * state_->info.l2_cache_bytes, std::size_t{1} << 20));
    }
    flush_l2(*state_->l2_scratch, s);
  }
  GpuTimer timer(s);
  timer.start();
  enqueue();
  return timer.stop_ms();
}

}  // namespace mlacheck
