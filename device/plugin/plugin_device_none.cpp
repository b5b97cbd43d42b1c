// PluginDevice in a build without a GPU backend: there is no GPU to run a device plugin on.
// load_plugin_backend() checks staging_available() first and answers with a reason; this refusal
// is for any other caller.
#include <stdexcept>
#include <string>

#include "device/platform/device_info.hpp"
#include "device/plugin/plugin_device.hpp"

namespace mlacheck {

struct PluginDevice::State {};

PluginDevice::PluginDevice(int) {
  throw std::invalid_argument("a device plugin needs a GPU: " + probe_devices().reason);
}

PluginDevice::~PluginDevice() = default;
int PluginDevice::index() const noexcept { return -1; }
std::string PluginDevice::name() const { return ""; }

std::string PluginDevice::pci_bus_id() const { return ""; }
void PluginDevice::make_current() const {}
StreamHandle PluginDevice::stream() const noexcept { return nullptr; }
void PluginDevice::synchronize() {}
double PluginDevice::time_ms(const std::function<void()>&, bool) { return 0.0; }

}  // namespace mlacheck
